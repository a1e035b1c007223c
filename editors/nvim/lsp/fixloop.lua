-- fixloop for Neovim 0.11 and later, as nvim-lspconfig ships its configs:
-- with editors/nvim on 'runtimepath', `vim.lsp.enable('fixloop')` starts
-- fixloop for Go, Python, C++ and Java buffers. Override fields with
-- vim.lsp.config('fixloop', { ... }) before enabling it, for example:
--   vim.lsp.config('fixloop', { settings = { fixloop = { model = { name = 'qwen2.5-coder' } } } })
-- The :Fixloop* commands come with require('fixloop').setup().
return require('fixloop').lsp_config()
