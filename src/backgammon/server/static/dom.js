// Building the page from data: elements with text children, never HTML strings, so a name,
// a message or a move from the server is always shown as text and never run. The pages run
// under a Content-Security-Policy without 'unsafe-inline': handlers are set as properties.
const SVG_NS = "http://www.w3.org/2000/svg";

function fill(node, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === "function") node[k] = v;  // onclick etc.: a property, not an inline handler
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));  // strings become text nodes
  }
  return node;
}

// h("li", { class: "x", onclick: f }, "text", child, [more children])
export function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

// the same for SVG elements
export function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

// A constant text of the UI with light markup: "## " starts a heading line (h3), other lines
// are paragraphs, **words** are bold. Replaces the element's content.
export function renderRich(el, text) {
  const inline = (line) => line.split("**").map((part, i) => (i % 2 ? h("b", {}, part) : part));
  el.replaceChildren(...String(text).split("\n").filter((l) => l.trim()).map((line) =>
    line.startsWith("## ") ? h("h3", {}, inline(line.slice(3))) : h("p", {}, inline(line))));
}
