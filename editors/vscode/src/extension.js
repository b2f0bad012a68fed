// The VS Code client of `drama lsp`: it starts the language server for .drama scripts and
// drama's YAML files, gives the YAML extension our schemas for the files the server says
// are drama's (and only those), and shows the story as you type in a webview.
// Bundled into dist/extension.js by esbuild (`npm run bundle`).
"use strict";
const fs = require("fs");
const path = require("path");
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

const SCHEMA_SCHEME = "drama-schema";
const SCHEMA_OF = { setting: "setting", cast: "cast", scenario: "scenario", plan: "test" };

let client;
const kinds = new Map(); // document URI -> "script" | "scenario" | "setting" | "cast" | "plan" | null

async function askKind(uri) {
  if (!client) return;
  try {
    kinds.set(uri, await client.sendRequest("drama/fileKind", { uri }));
  } catch (error) {
    kinds.delete(uri);
  }
}

// The YAML extension asks which schema a file follows: ours only for the files `drama lsp`
// says are drama's (a setting.yaml of another project gets none).
async function registerSchemas(context) {
  const yaml = vscode.extensions.getExtension("redhat.vscode-yaml");
  if (!yaml) return;
  const api = await yaml.activate();
  if (!api || !api.registerContributor) return;
  api.registerContributor(
    SCHEMA_SCHEME,
    (resource) => {
      const kind = kinds.get(resource);
      return kind && SCHEMA_OF[kind] ? `${SCHEMA_SCHEME}://schemas/${SCHEMA_OF[kind]}` : undefined;
    },
    (uri) => {
      const name = vscode.Uri.parse(uri).path.replace(/^\//, "").replace(/^schemas\//, "");
      return fs.readFileSync(path.join(context.extensionPath, "schemas", `${name}.schema.json`), "utf8");
    },
    "drama",
  );
}

// ---------------------------------------------------------------- the story as you type

class Preview {
  constructor(context) {
    this.context = context;
    this.panel = undefined;
    this.document = undefined;
    this.options = { seed: 0, choices: {}, view: "log" };
    this.timer = undefined;
    this.stale = false;
  }

  show(document) {
    this.document = document;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel("dramaPreview", "drama: the story", vscode.ViewColumn.Beside, {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.file(path.join(this.context.extensionPath, "media"))],
      });
      this.panel.onDidDispose(() => (this.panel = undefined));
      // rendered only while it is seen: a hidden preview asks again when it is shown
      this.panel.onDidChangeViewState(() => {
        if (this.panel && this.panel.visible && this.stale) this.refresh();
      });
      this.panel.webview.onDidReceiveMessage((message) => this.receive(message));
      this.panel.webview.html = this.page();
    }
    this.refresh();
  }

  changed(document) {
    if (!this.panel || !this.document) return;
    clearTimeout(this.timer);
    if (!this.panel.visible) {
      this.stale = true;
      return;
    }
    this.timer = setTimeout(() => this.refresh(), 100);
  }

  async refresh() {
    if (!this.panel || !client || !this.document) return;
    this.stale = false;
    const found = await client.sendRequest("workspace/executeCommand", {
      command: "drama.preview",
      arguments: [this.document.uri.toString(), this.options],
    });
    if (this.panel) this.panel.webview.postMessage({ type: "preview", preview: found, options: this.options });
  }

  async receive(message) {
    if (message.type === "open") {
      const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(message.uri));
      const editor = await vscode.window.showTextDocument(document, vscode.ViewColumn.One);
      const where = new vscode.Position(message.line, 0);
      editor.selection = new vscode.Selection(where, where);
      editor.revealRange(new vscode.Range(where, where), vscode.TextEditorRevealType.InCenter);
    } else if (message.type === "options") {
      this.options = message.options;
      this.refresh();
    }
  }

  page() {
    const media = (name) =>
      this.panel.webview.asWebviewUri(vscode.Uri.file(path.join(this.context.extensionPath, "media", name)));
    const csp = this.panel.webview.cspSource;
    return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${csp} 'unsafe-inline'; script-src ${csp};">
<link rel="stylesheet" href="${media("preview.css")}"></head>
<body><div id="bar"></div><div id="story"></div><h2>The map of the adventure</h2><div id="map"></div>
<details><summary>Mermaid</summary><pre id="mermaid"></pre></details>
<script src="${media("preview.js")}"></script></body></html>`;
  }
}

function activate(context) {
  const config = vscode.workspace.getConfiguration("drama");
  registerSchemas(context);
  if (!config.get("server.enabled", true)) {
    return;
  }
  const command = config.get("server.command", "drama");
  client = new LanguageClient(
    "drama",
    "drama",
    { command, args: ["lsp"] },
    {
      // the server answers for YAML files too, but only drama's get diagnostics (drama/fileKind)
      documentSelector: [
        { scheme: "file", language: "drama" },
        { scheme: "file", language: "yaml" },
      ],
    },
  );
  const preview = new Preview(context);
  context.subscriptions.push(
    vscode.commands.registerCommand("drama.showPreview", () => {
      const editor = vscode.window.activeTextEditor;
      if (editor) preview.show(editor.document);
    }),
    vscode.workspace.onDidChangeTextDocument((event) => preview.changed(event.document)),
    vscode.workspace.onDidOpenTextDocument((document) => {
      if (document.languageId === "yaml") askKind(document.uri.toString());
    }),
  );
  client
    .start()
    .then(() => {
      for (const document of vscode.workspace.textDocuments) {
        if (document.languageId === "yaml") askKind(document.uri.toString());
      }
    })
    .catch((error) => {
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
