// Small helpers shared by the pages: building elements, reading the API, formatting, polling.

export const state = { keyHandler: null, pollTimer: null, polling: null, stream: null };
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
const pad = (n) => String(n).padStart(2, "0");

export function when(ms) {
  // Compact and the same width everywhere ("2026-11-23 14:05", local time); the full moment is its tooltip.
  if (!ms) return "–";
  const d = new Date(ms);
  const text = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  // Written out rather than toLocaleString(): the first call loads the locale data, some 50 ms of a
  // new page's CPU, and every table row has a time.
  const offset = -d.getTimezoneOffset();
  const zone = `UTC${offset < 0 ? "−" : "+"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return h("time", { datetime: d.toISOString(), title: `${text}:${pad(d.getSeconds())} (${zone})` }, text);
}

const ENDS = {
  normal: "played to the end",
  unfinished: "stopped unfinished",
  forfeit: "ended by a forfeit",
  aborted: "aborted (not rated)",
  running: "still running",
  goal: "goal reached",
  passes: "both sides passed",
  ply_limit: "move limit reached",
};

export function endWords(end) {
  // How a match or round ended, in words; an identifier the UI does not know is shown with spaces.
  return ENDS[end] || String(end || "").replaceAll("_", " ");
}
// Names and ids may be long: as `name` links they wrap anywhere rather than widen their table past the screen.
export const botLink = (name) => h("a", { class: "name", href: `#/bots/${encodeURIComponent(name)}` }, name);
export const matchLink = (id) => h("a", { class: "name", href: `#/matches/${encodeURIComponent(id)}` }, id);
export const ordinal = (n) => `${n}${["th", "st", "nd", "rd"][(n % 100 >= 11 && n % 100 <= 13) || n % 10 > 3 ? 0 : n % 10]}`;
export const signed = (value, digits = 2) =>
  (value === null || value === undefined ? "–" : `${value > 0 ? "+" : value < 0 ? "−" : ""}${Math.abs(value).toFixed(digits)}`);
let tables = 0;

export function table(caption, heads, rows, attrs = {}) {
  // The caption sits above the table's scrolling box, not in it: a table wider than the screen scrolls
  // inside its box while its caption wraps at the screen's width, never cut off at the box's edge.
  // `stack: true`: on a phone each row is drawn as a card of labelled cells (app.css), so that no
  // column is left past the screen's edge; each cell carries its column's heading as its label.
  const id = `table-${++tables}`;
  const { class: cls, stack, ...rest } = attrs;
  if (stack) labelCells(heads, rows);
  return h("div", { class: `table-box${cls ? ` ${cls}` : ""}${stack ? " stack" : ""}`, ...rest },
    h("p", { class: "caption", id }, caption),
    h("div", { class: "scroll", role: "region", "aria-labelledby": id },
      h("table", { "aria-labelledby": id, role: stack ? "table" : null },
        h("thead", { role: stack ? "rowgroup" : null }, h("tr", { role: stack ? "row" : null },
          heads.map(([label, c]) => h("th", { scope: "col", class: c, role: stack ? "columnheader" : null }, label)))),
        h("tbody", { role: stack ? "rowgroup" : null }, rows))));
}

function labelCells(heads, rows) {
  // Drawn as blocks, a table loses its roles in some screen readers: they are said explicitly.
  for (const row of rows) {
    row.setAttribute("role", "row");
    [...row.children].forEach((cell, i) => {
      cell.setAttribute("role", cell.tagName === "TH" ? "rowheader" : "cell");
      if (heads[i] && heads[i][0]) cell.dataset.label = heads[i][0];
    });
  }
}

export function markScrollers(root) {
  // A box whose table is wider than the screen can be focused, so the keyboard can scroll it too.
  // All reads, then only the writes that change something: a write between reads lays the page out again.
  const boxes = [...root.querySelectorAll(".scroll")];
  const wide = boxes.map((box) => box.scrollWidth > box.clientWidth);
  boxes.forEach((box, i) => {
    if (wide[i] && box.getAttribute("tabindex") !== "0") box.setAttribute("tabindex", "0");
    else if (!wide[i] && box.hasAttribute("tabindex")) box.removeAttribute("tabindex");
  });
}

export function fill(parent, ...nodes) {
  // replaceChildren would write a left-out part (null) as the text "null".
  parent.replaceChildren(...nodes.flat(Infinity).filter((node) => node !== null && node !== undefined));
}

export function say(text) {
  announcer.textContent = text;
}

export function poll(fn, ms) {
  // A tick still waiting for its answer when the page changes must not start polling again.
  stopPolling();
  const own = {};
  state.polling = own;
  const tick = async () => {
    try {
      if (await fn() === false) return;
    } catch (error) {
      console.warn(error);
    }
    if (state.polling === own) state.pollTimer = setTimeout(tick, ms);
  };
  state.pollTimer = setTimeout(tick, ms);
}

export function follow(url, { update, end, fallback }) {
  // One Server-Sent Events stream per page: `update` with each change, `end` once it is over. If the
  // stream drops (a proxy, a restarted server), the page falls back to `fallback`, which polls.
  stopFollowing();
  const view = document.getElementById("view");
  const source = new EventSource(url);
  state.stream = source;
  view.dataset.transport = "stream";
  source.addEventListener("update", (event) => update(JSON.parse(event.data)));
  source.addEventListener("end", (event) => {
    stopFollowing();
    end(JSON.parse(event.data));
  });
  source.addEventListener("error", () => {
    if (state.stream !== source) return;
    stopFollowing();
    view.dataset.transport = "poll";
    fallback();
  });
}

export function stopFollowing() {
  if (state.stream) state.stream.close();
  state.stream = null;
}

export function stopPolling() {
  if (state.pollTimer) clearTimeout(state.pollTimer);
  state.pollTimer = null;
  state.polling = null;
}


export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}
