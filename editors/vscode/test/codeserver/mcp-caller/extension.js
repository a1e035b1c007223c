// Test helper for test/codeserver.test.ts, packaged and installed beside the
// fixloop extension by test/codeserver.sh. Its one command does what agent
// mode does with a tool: finds fixloop's fixloop_diagnostics among VS Code's
// language model tools (vscode.lm.tools, where VS Code puts the tools of
// running MCP servers) and calls it with vscode.lm.invokeTool. It writes what
// it saw to $FIXLOOP_MCP_CALL_OUT for the test to read, and shows a
// notification.
const fs = require('fs');
const vscode = require('vscode');

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.commands.registerCommand('fixloopTest.callDiagnostics', async () => {
      const result = { tools: vscode.lm.tools.map((t) => t.name) };
      try {
        const tool = vscode.lm.tools.find((t) => /fixloop_diagnostics$/.test(t.name));
        if (!tool) throw new Error(`no fixloop_diagnostics tool among ${JSON.stringify(result.tools)}`);
        result.called = tool.name;
        result.description = tool.description;
        const cts = new vscode.CancellationTokenSource();
        const r = await vscode.lm.invokeTool(
          tool.name,
          { input: { path: 'wallet/wallet.go' }, toolInvocationToken: undefined },
          cts.token,
        );
        result.content = r.content.map((p) =>
          p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p),
        );
      } catch (err) {
        result.error = String((err && err.stack) || err);
      }
      const out = process.env.FIXLOOP_MCP_CALL_OUT;
      if (out) fs.writeFileSync(out, JSON.stringify(result, null, 2));
      void vscode.window.showInformationMessage(
        result.error ? `fixloop test: the call failed: ${result.error}` : `fixloop test: ${result.called} answered`,
      );
    }),
  );
};
