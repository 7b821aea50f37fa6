// Small helpers shared by the pages: building elements, reading the API, formatting, polling.

export const state = { keyHandler: null, pollTimer: null, stream: null };
const announcer = document.getElementById("announce");

export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  for (const child of children.flat()) node.append(child instanceof Node ? child : document.createTextNode(child));
  return node;
}

export async function api(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.detail || `${response.status} ${response.statusText}`);
  return body;
}

export const fmt = (value, digits = 2) => (value === null || value === undefined ? "–" : Number(value).toFixed(digits));
export const when = (ms) => (ms ? new Date(ms).toLocaleString() : "–");
export const botLink = (name) => h("a", { href: `#/bots/${encodeURIComponent(name)}` }, name);
export const matchLink = (id) => h("a", { href: `#/matches/${encodeURIComponent(id)}` }, id);
export const table = (caption, heads, rows, attrs = {}) =>
  h("div", { class: "scroll", ...attrs }, h("table", {}, h("caption", {}, caption),
    h("thead", {}, h("tr", {}, heads.map(([label, cls]) => h("th", { scope: "col", class: cls }, label)))),
    h("tbody", {}, rows)));


export function fill(parent, ...nodes) {
  // replaceChildren would write a left-out part (null) as the text "null".
  parent.replaceChildren(...nodes.flat(Infinity).filter((node) => node !== null && node !== undefined));
}

export function say(text) {
  announcer.textContent = text;
}

export function poll(fn, ms) {
  stopPolling();
  const tick = async () => {
    try {
      if (await fn() === false) return;
    } catch (error) {
      console.warn(error);
    }
    state.pollTimer = setTimeout(tick, ms);
  };
  state.pollTimer = setTimeout(tick, ms);
}

export function stopPolling() {
  if (state.pollTimer) clearTimeout(state.pollTimer);
  state.pollTimer = null;
}


export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}
