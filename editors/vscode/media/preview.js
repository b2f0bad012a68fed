// The webview of the story preview: the run's log (each told line opens its line of the
// script), the choices met (answerable), the seed and the view, and the adventure's map.
"use strict";
(function () {
  const vscode = acquireVsCodeApi();
  let options = { seed: 0, choices: {}, view: "log" };

  function element(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  function send() {
    vscode.postMessage({ type: "options", options });
  }

  function bar(preview) {
    const root = document.getElementById("bar");
    root.replaceChildren();
    const seed = element("input");
    seed.type = "number";
    seed.min = "0";
    seed.value = String(options.seed);
    seed.onchange = () => {
      options.seed = Math.max(0, parseInt(seed.value, 10) || 0);
      send();
    };
    const view = element("select");
    for (const name of ["log", "transcript"]) {
      const option = element("option", name);
      option.selected = options.view === name;
      view.appendChild(option);
    }
    view.onchange = () => {
      options.view = view.value;
      send();
    };
    root.append(element("b", preview.title || ""), " seed ", seed, " ", view);
    for (const choice of preview.choices || []) {
      const pick = element("select");
      for (const label of choice.options) {
        const option = element("option", label);
        option.selected = label === choice.taken;
        pick.appendChild(option);
      }
      pick.onchange = () => {
        options.choices[choice.label] = pick.value;
        send();
      };
      const where = element("span", ` ${choice.label}: `, "choice");
      root.append(where, pick, element("small", choice.by === "seeded" ? " (the dice)" : ""));
    }
  }

  function story(preview) {
    const root = document.getElementById("story");
    root.replaceChildren();
    if (preview.error) {
      const error = element("pre", preview.error, "error");
      if (preview.error_uri) {
        error.onclick = () => vscode.postMessage({ type: "open", uri: preview.error_uri, line: preview.error_line || 0 });
      }
      root.appendChild(error);
      return;
    }
    for (const line of preview.lines) {
      const row = element("div", line.text || "\u00a0", line.uri ? "told" : "");
      if (line.uri) row.onclick = () => vscode.postMessage({ type: "open", uri: line.uri, line: line.line });
      root.appendChild(row);
    }
  }

  window.addEventListener("message", (event) => {
    const message = event.data;
    if (message.type !== "preview") return;
    options = message.options;
    bar(message.preview);
    story(message.preview);
    // the map: the server's SVG drawing (made from our own data, not the page's), its Mermaid text below
    const map = document.getElementById("map");
    map.replaceChildren();
    if (message.preview.map_svg) {
      const drawing = new DOMParser().parseFromString(message.preview.map_svg, "image/svg+xml").documentElement;
      map.appendChild(document.importNode(drawing, true));
    }
    document.getElementById("mermaid").textContent = message.preview.map || "";
  });
})();
