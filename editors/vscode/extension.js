// The VS Code client of `drama lsp`: it starts the language server for .drama scripts and
// the scenario YAML files. Highlighting (the TextMate grammar) and YAML validation (the
// schemas, through the YAML extension) work without it.
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("drama");
  if (!config.get("server.enabled", true)) {
    return;
  }
  const command = config.get("server.command", "drama");
  client = new LanguageClient(
    "drama",
    "drama",
    { command, args: ["lsp"] },
    {
      documentSelector: [
        { scheme: "file", language: "drama" },
        { scheme: "file", language: "yaml" },
      ],
    },
  );
  client.start().catch((error) => {
    vscode.window.showWarningMessage(
      `drama: could not start "${command} lsp" (${error.message}); set drama.server.command to your drama command.`,
    );
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
