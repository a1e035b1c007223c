-- fixloop does nothing until require('fixloop').setup({...}) is called.
if vim.g.loaded_fixloop then
  return
end
vim.g.loaded_fixloop = 1
