// Thirteen Arena web UI: hash routes over the read-only JSON API, no framework, no build step.
"use strict";

const view = document.getElementById("view");
const announcer = document.getElementById("announce");
let pollTimer = null;
let keyHandler = null;
const POLL_MS = { list: 2000, live: 1000 };

// -- small helpers -----------------------------------------------------------------------------

function h(tag, attrs, ...children) {
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

function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  for (const child of children.flat()) node.append(child instanceof Node ? child : document.createTextNode(child));
  return node;
}

async function api(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.detail || `${response.status} ${response.statusText}`);
  return body;
}

const fmt = (value, digits = 2) => (value === null || value === undefined ? "–" : Number(value).toFixed(digits));
const when = (ms) => (ms ? new Date(ms).toLocaleString() : "–");
const botLink = (name) => h("a", { href: `#/bots/${encodeURIComponent(name)}` }, name);
const matchLink = (id) => h("a", { href: `#/matches/${encodeURIComponent(id)}` }, id);
const table = (caption, heads, rows, attrs = {}) =>
  h("div", { class: "scroll", ...attrs }, h("table", {}, h("caption", {}, caption),
    h("thead", {}, h("tr", {}, heads.map(([label, cls]) => h("th", { scope: "col", class: cls }, label)))),
    h("tbody", {}, rows)));

function fill(parent, ...nodes) {
  // replaceChildren would write a left-out part (null) as the text "null".
  parent.replaceChildren(...nodes.flat(Infinity).filter((node) => node !== null && node !== undefined));
}

function show(...nodes) {
  fill(view, ...nodes);
}

function say(text) {
  announcer.textContent = text;
}

function poll(fn, ms) {
  stopPolling();
  const tick = async () => {
    try {
      if (await fn() === false) return;
    } catch (error) {
      console.warn(error);
    }
    pollTimer = setTimeout(tick, ms);
  };
  pollTimer = setTimeout(tick, ms);
}

function stopPolling() {
  if (pollTimer) clearTimeout(pollTimer);
  pollTimer = null;
}

// -- routing -----------------------------------------------------------------------------------

const routes = [
  [/^\/?$/, () => leaderboardPage(null)],
  [/^\/leaderboards\/([^/]+)$/, (game) => leaderboardPage(game)],
  [/^\/bots$/, () => botsPage()],
  [/^\/bots\/([^/]+)$/, (name) => botPage(name)],
  [/^\/matches$/, (params) => matchesPage(params)],
  [/^\/matches\/([^/]+)$/, (id) => matchPage(id)],
  [/^\/tournaments$/, () => tournamentsPage()],
  [/^\/tournaments\/([^/]+)$/, (name) => tournamentPage(name)],
  [/^\/api$/, () => apiPage()],
];

async function route() {
  stopPolling();
  keyHandler = null;
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  const section = (path.split("/")[1] || "leaderboards");
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.dataset.nav === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const hash = location.hash;
  const found = routes.map(([pattern, render]) => [pattern.exec(path || "/"), render]).find(([match]) => match);
  if (!found) {
    show(h("h1", {}, "No such page"), h("p", {}, "Try the ", h("a", { href: "#/" }, "leaderboards"), "."));
  } else {
    try {
      await found[1](...found[0].slice(1).map(decodeURIComponent), params);
    } catch (error) {
      show(h("h1", {}, "Not available"), h("p", { class: "error", role: "alert" }, error.message));
    }
  }
  // Which route the page now shows: a later navigation may have started while this one loaded.
  if (location.hash === hash) view.dataset.route = hash;
}

window.addEventListener("hashchange", () => route().then(() => view.focus({ preventScroll: true })));
document.addEventListener("keydown", (event) => {
  if (keyHandler && !event.target.closest("input, select, textarea")) keyHandler(event);
});
route();

// -- leaderboards ------------------------------------------------------------------------------

async function leaderboardPage(game) {
  const games = await api("/api/games");
  game = game || games[0].name;
  const tabs = h("ul", { class: "tabs" }, games.map((g) => h("li", {}, h("a", {
    href: `#/leaderboards/${g.name}`, "aria-current": g.name === game ? "page" : null }, g.name))));
  const holder = h("div", {});
  const render = async () => {
    const board = await api(`/api/leaderboards/${encodeURIComponent(game)}`);
    const rows = board.rows.map((row) => h("tr", { "data-bot": row.bot },
      h("td", { class: "num" }, row.rank), h("td", {}, botLink(row.bot)),
      h("td", { class: "num" }, fmt(row.conservative)), h("td", { class: "num" }, `${fmt(row.mu)} ± ${fmt(row.sigma)}`),
      h("td", { class: "num" }, row.games), h("td", { class: "hide-narrow" }, when(row.last_ms))));
    holder.replaceChildren(rows.length
      ? table(`${game}: best first by the conservative rating mu − 3σ (updates as matches finish)`,
        [["Rank", "num"], ["Bot"], ["Rating", "num"], ["mu ± σ", "num"], ["Games", "num"], ["Last played", "hide-narrow"]],
        rows)
      : h("p", { class: "muted" }, `No rated ${game} matches yet.`));
  };
  await render();
  show(h("h1", {}, "Leaderboards"), h("nav", { "aria-label": "Games" }, tabs), holder);
  poll(render, POLL_MS.list);
}

// -- bots --------------------------------------------------------------------------------------

async function botsPage() {
  const { bots, builtin } = await api("/api/bots");
  const row = (bot) => h("tr", {}, h("td", {}, botLink(bot.name)), h("td", {}, bot.kind), h("td", {}, bot.language || "–"),
    h("td", {}, bot.owner || "–"), h("td", {}, bot.games.join(", ")), h("td", {}, bot.connected ? "yes" : "no"));
  const heads = [["Bot"], ["Kind"], ["Language"], ["Owner"], ["Games"], ["Connected"]];
  show(h("h1", {}, "Bots"),
    bots.length ? table("Registered bots", heads, bots.map(row)) : h("p", { class: "muted" }, "No bots registered yet."),
    h("h2", {}, "Built-in bots"), table("Played inside the server", heads, builtin.map(row)));
}

async function botPage(name) {
  const data = await api(`/api/bots/${encodeURIComponent(name)}`);
  const bot = data.bot;
  const facts = h("dl", { class: "facts" },
    h("dt", {}, "Kind"), h("dd", {}, bot.kind), h("dt", {}, "Language"), h("dd", {}, bot.language || "–"),
    h("dt", {}, "Owner"), h("dd", {}, bot.owner || "–"), h("dt", {}, "Games"), h("dd", {}, bot.games.join(", ") || "–"),
    h("dt", {}, "Connected"), h("dd", {}, bot.connected ? "yes" : "no"),
    bot.description ? [h("dt", {}, "About"), h("dd", {}, bot.description)] : null);
  const sections = Object.entries(data.ratings).map(([game, rating]) => h("section", { "data-game": game },
    h("h2", {}, `${game}: ${fmt(rating.mu)} ± ${fmt(rating.sigma)} (rating ${fmt(rating.conservative)}, ${plural(rating.games, "game")})`),
    ratingPlot(game, rating.history)));
  show(h("h1", {}, bot.name), facts,
    sections.length ? sections : h("p", { class: "muted" }, "No rated matches yet."),
    h("h2", {}, "Recent matches"), matchTable(data.matches, "Latest first"),
    h("p", {}, h("a", { href: `#/matches?bot=${encodeURIComponent(bot.name)}` }, "All matches of this bot")));
}

function ratingPlot(game, history) {
  // mu after each rated match as a line, mu ± sigma as a band; x is the match count.
  const W = 640, H = 240, L = 44, R = 12, T = 12, B = 30;
  const points = history.map((p, i) => ({ x: i + 1, mu: p.mu, lo: p.mu - p.sigma, hi: p.mu + p.sigma }));
  const lo = Math.floor(Math.min(...points.map((p) => p.lo)));
  const hi = Math.ceil(Math.max(...points.map((p) => p.hi)));
  const n = Math.max(points.length, 2);
  const x = (v) => L + ((v - 1) / (n - 1)) * (W - L - R);
  const y = (v) => T + (1 - (v - lo) / Math.max(hi - lo, 1)) * (H - T - B);
  const band = points.map((p) => `${x(p.x)},${y(p.hi)}`).concat(points.slice().reverse().map((p) => `${x(p.x)},${y(p.lo)}`));
  const ticks = [];
  const step = Math.max(1, Math.ceil((hi - lo) / 5));
  for (let v = lo; v <= hi; v += step) {
    ticks.push(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }),
      svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  const last = points[points.length - 1];
  const label = `${game} rating history: ${points.length} rated matches, mu from ${fmt(points[0].mu)} to ${fmt(last.mu)}, ` +
    `sigma now ${fmt(last.hi - last.mu)}`;
  return svg("svg", { class: "plot", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label },
    svg("title", {}, label), ...ticks,
    svg("polygon", { class: "band", points: band.join(" ") }),
    svg("polyline", { class: "mu", points: points.map((p) => `${x(p.x)},${y(p.mu)}`).join(" ") }),
    // A band and a line need two points: a lone rating shows as a dot with its sigma as a bar.
    ...(points.length === 1 ? [svg("line", { class: "sigma-bar", x1: x(1), x2: x(1), y1: y(last.lo), y2: y(last.hi) })] : []),
    ...(points.length <= 40 ? points.map((p) => svg("circle", { class: "mu-dot", cx: x(p.x), cy: y(p.mu), r: 3.5 })) : []),
    svg("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }),
    svg("text", { x: L, y: H - 10 }, "1"), svg("text", { x: W - R, y: H - 10, "text-anchor": "end" }, plural(points.length, "match", "matches")),
    svg("text", { x: (W + L) / 2, y: H - 10, "text-anchor": "middle" }, "mu (line) ± sigma (band)"));
}

function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}

// -- matches -----------------------------------------------------------------------------------

function matchTable(matches, caption) {
  if (!matches.length) return h("p", { class: "muted" }, "No matches.");
  return table(caption, [["Match"], ["Game"], ["Seats and scores"], ["End"], ["Tournament", "hide-narrow"], ["Started", "hide-narrow"]],
    matches.map((m) => h("tr", { "data-match": m.match_id },
      h("td", {}, matchLink(m.match_id)), h("td", {}, m.game),
      h("td", {}, m.seats.map((seat, i) => [i ? ", " : "", botLink(seat), m.scores.length ? ` ${m.scores[i]}` : ""])),
      h("td", {}, m.running ? h("span", { class: "live-badge" }, "LIVE") : m.termination),
      h("td", { class: "hide-narrow" }, m.tournament_id ? h("a", { href: `#/tournaments/${encodeURIComponent(m.tournament_id)}` }, m.tournament_id) : "–"),
      h("td", { class: "hide-narrow" }, when(m.started_ms)))));
}

async function matchesPage(params) {
  const games = await api("/api/games");
  const filters = { game: params.get("game") || "", bot: params.get("bot") || "", tournament: params.get("tournament") || "" };
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
  const form = h("form", { class: "filters", onsubmit: (event) => {
    event.preventDefault();
    const chosen = new URLSearchParams([...new FormData(event.target)].filter(([, v]) => v));
    location.hash = `#/matches${chosen.toString() ? "?" + chosen : ""}`;
  } },
  h("label", {}, "Game", h("select", { name: "game" }, h("option", { value: "" }, "any"),
    games.map((g) => h("option", { value: g.name, selected: g.name === filters.game }, g.name)))),
  h("label", {}, "Bot", h("input", { name: "bot", value: filters.bot, placeholder: "any", size: 14 })),
  h("label", {}, "Tournament", h("input", { name: "tournament", value: filters.tournament, placeholder: "any", size: 14 })),
  h("button", { type: "submit" }, "Filter"));
  const holder = h("div", {});
  const render = async () => {
    const { matches } = await api(`/api/matches?${query}`);
    holder.replaceChildren(matchTable(matches, "Newest first"));
  };
  await render();
  show(h("h1", {}, "Matches"), form, holder);
  poll(render, POLL_MS.list);
}

async function matchPage(id) {
  const data = await api(`/api/matches/${encodeURIComponent(id)}`);
  const m = data.match;
  const heading = h("h1", {}, `Match ${m.match_id}: ${m.game}`);
  const facts = h("dl", { class: "facts" },
    h("dt", {}, "Seats"), h("dd", {}, m.seats.map((s, i) => [i ? ", " : "", `${i}: `, botLink(s)])),
    h("dt", {}, "Started"), h("dd", {}, when(m.started_ms)),
    m.tournament_id ? [h("dt", {}, "Tournament"), h("dd", {}, h("a", { href: `#/tournaments/${encodeURIComponent(m.tournament_id)}` }, m.tournament_id))] : null,
    h("dt", {}, "Status"), h("dd", { id: "match-status" }, m.running ? "running" : `ended (${m.termination})`));
  if (data.live) {
    const holder = h("div", {});
    const render = (live, match) => holder.replaceChildren(h("p", {}, h("span", { class: "live-badge" }, "LIVE"),
      " Public view, updated every second; hands are shown once the match has ended."),
    h("p", { class: "move-text", id: "move-text" }, live.last_move || "No move yet."),
    renderView(live.view, data.drawing, match.seats, null, null));
    render(data.live, m);
    show(heading, facts, holder);
    poll(async () => {
      const next = await api(`/api/matches/${encodeURIComponent(id)}`);
      if (!next.live) {
        await matchPage(id);
        return false;
      }
      render(next.live, next.match);
      return true;
    }, POLL_MS.live);
    return;
  }
  if (!data.replay) {
    show(heading, facts, h("p", {}, m.running
      ? "This match runs on another arena node; its replay appears here when it ends."
      : "This match was aborted before it ended; there is no replay."));
    if (m.running) poll(async () => { await matchPage(id); return false; }, POLL_MS.live);
    return;
  }
  show(heading, facts, replayViewer(data.replay, data.frames, data.drawing));
}

// -- the replay viewer -------------------------------------------------------------------------

function replayViewer(replay, frames, drawing) {
  let index = 0;
  const status = h("span", { class: "step-status", id: "step-status" });
  const slider = h("input", { type: "range", min: 0, max: frames.length - 1, value: 0, "aria-label": "Step" });
  const buttons = {
    first: h("button", { type: "button", title: "First step (Home)" }, "Start"),
    prevRound: h("button", { type: "button", title: "Previous round (Page Up)" }, "◀◀ Round"),
    prev: h("button", { type: "button", title: "Previous move (left arrow)" }, "◀ Move"),
    next: h("button", { type: "button", title: "Next move (right arrow)" }, "Move ▶"),
    nextRound: h("button", { type: "button", title: "Next round (Page Down)" }, "Round ▶▶"),
    last: h("button", { type: "button", title: "Last step (End)" }, "End"),
  };
  const moveText = h("p", { class: "move-text", id: "move-text" });
  const board = h("div", {});
  const scores = h("div", {});
  const roundStart = (i, direction) => {
    const round = frames[i].round + direction;
    const found = frames.findIndex((f) => f.round === round);
    return found < 0 ? (direction < 0 ? 0 : frames.length - 1) : found;
  };
  const go = (target) => {
    index = Math.max(0, Math.min(frames.length - 1, target));
    const frame = frames[index];
    const previous = index > 0 ? frames[index - 1] : null;
    slider.value = index;
    const rounds = replay.rounds.length;
    const moves = replay.rounds[frame.round].moves.length;
    status.textContent = `Step ${index} of ${frames.length - 1} · round ${frame.round + 1} of ${rounds} · ` +
      `move ${countMoves(frames, index)} of ${moves}`;
    moveText.replaceChildren(...describeMove(replay, frame, drawing));
    board.replaceChildren(renderView(frame.view, drawing, replay.seats, frame.hands || null, frame.move,
      previous && previous.view));
    scores.replaceChildren(scoreTable(replay, frame, drawing));
    buttons.first.disabled = buttons.prev.disabled = buttons.prevRound.disabled = index === 0;
    buttons.last.disabled = buttons.next.disabled = buttons.nextRound.disabled = index === frames.length - 1;
    say(`${status.textContent}. ${moveText.textContent}`);
  };
  buttons.first.onclick = () => go(0);
  buttons.prev.onclick = () => go(index - 1);
  buttons.next.onclick = () => go(index + 1);
  buttons.last.onclick = () => go(frames.length - 1);
  buttons.prevRound.onclick = () => go(frames[index].move === null ? roundStart(index, -1) : roundStart(index, 0));
  buttons.nextRound.onclick = () => go(roundStart(index, 1));
  slider.oninput = () => go(Number(slider.value));
  keyHandler = (event) => {
    const actions = { ArrowRight: buttons.next, ArrowLeft: buttons.prev, Home: buttons.first, End: buttons.last,
      PageDown: buttons.nextRound, PageUp: buttons.prevRound };
    const button = actions[event.key];
    if (button && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      button.click();
    }
  };
  const viewer = h("section", { class: "viewer", id: "replay", tabindex: 0, "aria-label": "Replay viewer" },
    h("div", { class: "controls" }, buttons.first, buttons.prevRound, buttons.prev, buttons.next, buttons.nextRound,
      buttons.last, slider),
    h("p", { class: "keys" }, "Keys: ", h("kbd", {}, "←"), " ", h("kbd", {}, "→"), " move, ", h("kbd", {}, "PgUp"), " ",
      h("kbd", {}, "PgDn"), " round, ", h("kbd", {}, "Home"), " ", h("kbd", {}, "End"), " start and end."),
    status, moveText, board, scores,
    h("p", { class: "muted" }, `Seed ${replay.seed}, commitment ${replay.seed_commitment}.`));
  go(0);
  return viewer;
}

function countMoves(frames, index) {
  // The move's number within its round: frames since the round's first frame.
  let start = index;
  while (start > 0 && frames[start].move !== null) start -= 1;
  return index - start;
}

function describeMove(replay, frame, drawing) {
  const move = frame.move;
  if (!move) return [`Round ${frame.round + 1} starts.`, frame.hands ? " Every hand is shown: the match has ended." : ""];
  const who = `Seat ${move.seat} (${replay.seats[move.seat]})`;
  if (move.move !== undefined) {
    // A move the record writes as action text; board games add what it captured and toppled.
    const parts = [`${who} played ${move.move}.`];
    if (move.captured && move.captured.length) parts.push(` Captured ${move.captured.join(", ")}.`);
    if (move.toppled && move.toppled.length) parts.push(` Toppled the monument on ${move.toppled.join(", ")}.`);
    return parts;
  }
  const parts = [`${who} played `, card(move.card, drawing, true), ` on the ${move.pile} pile: total ${move.total}.`];
  if (move.took.length) parts.push(" Took ", h("span", { class: "cards", style: "display:inline-flex" },
    move.took.map((c) => card(c, drawing, true))), ` (${move.took.length} cards).`);
  return parts;
}

const SUIT_SHAPES = {
  circle: () => svg("circle", { cx: 8, cy: 8, r: 6.5, fill: "currentColor" }),
  triangle: () => svg("polygon", { points: "8,1 15,15 1,15", fill: "currentColor" }),
  square: () => svg("rect", { x: 2, y: 2, width: 12, height: 12, fill: "currentColor" }),
  star: () => svg("polygon", { points: "8,0 10,6 16,6 11,10 13,16 8,12 3,16 5,10 0,6 6,6", fill: "currentColor" }),
};

function card(text, drawing, small) {
  // A card: its suit by shape and name as well as colour (all as the game's drawing declares), and its value.
  const [suit, value] = text.split(":");
  const look = drawing.suits[suit];
  return h("span", { class: `card${look.wild ? " wild" : ""}${small ? " small" : ""}`, style: `color: ${look.colour}`,
    "data-card": text, "data-suit": suit, role: "img", "aria-label": `${suit} ${value}`, title: text },
  svg("svg", { viewBox: "0 0 16 16", "aria-hidden": "true" }, SUIT_SHAPES[look.shape]()),
  h("span", { class: "value" }, value), h("span", { class: "suit-name" }, suit));
}

const RENDERERS = {
  cards: (v, drawing, seats, hands, move) => cardView(v, drawing, seats, hands, move),
  board: (v, drawing, seats, hands, move, before) => boardView(v, seats, move, before),
  facts: (v, drawing, seats) => factsView(v, seats),
};

function renderView(viewData, drawing, seats, hands, move, before) {
  // The game's drawing names the renderer; the view's own kind is the same name.
  return RENDERERS[drawing.kind](viewData, drawing, seats, hands, move, before);
}

function factsView(v, seats) {
  // A game drawn as plain facts: each a label and its value, then the seats with who is to move.
  return h("div", { class: "facts-view" },
    h("dl", { class: "facts" }, v.facts.map(([label, value]) => [h("dt", {}, label), h("dd", {}, String(value))])),
    h("ul", {}, seats.map((name, seat) => h("li", { class: v.current_player === seat ? "to-move" : "", "data-seat": seat },
      `Seat ${seat}: ${name}${v.current_player === seat ? " (to move)" : ""}`))));
}

function cardView(v, drawing, seats, hands, move) {
  const piles = h("div", { class: "piles" }, v.piles.map((pile) => h("section", {
    class: `pile${move && move.pile === pile.pile ? " hot" : ""}`, "data-pile": pile.pile, "data-total": pile.total,
    "aria-label": `${pile.pile} pile, total ${pile.total}` },
  h("h3", {}, h("span", {}, `${pile.pile} pile`), h("span", { class: "total" }, pile.total)),
  h("div", { class: "cards" }, pile.cards.map((c) => card(c, drawing, true))))));
  const seatBoxes = h("div", { class: "seats" }, seats.map((name, seat) => h("section", {
    class: `seat${v.current_player === seat ? " to-move" : ""}`, "data-seat": seat },
  h("h3", {}, `Seat ${seat}: ${name}${v.current_player === seat ? " (to move)" : ""}`),
  h("div", { class: "label" }, hands ? `Hand (${hands[seat].length})` : `Hand: ${v.hand_sizes[seat]} cards (hidden)`),
  hands ? h("div", { class: "cards hand" }, hands[seat].map((c) => card(c, drawing, true))) : null,
  h("div", { class: "label" }, `Taken this round (${v.collected[seat].length})`),
  h("div", { class: "cards collected" }, v.collected[seat].map((c) => card(c, drawing, true))),
  h("div", { class: "label" }, "Score so far: ", h("strong", { class: "score" }, v.scores[seat])))));
  const extra = v.draw_pile_size ? `Draw pile: ${v.draw_pile_size} cards.` : v.dummy_size ? `Dummy hand: ${v.dummy_size} cards.` : "";
  return h("div", {}, piles, extra ? h("p", { class: "muted" }, extra) : null, seatBoxes);
}

function boardView(v, seats, move, before) {
  const fields = v.board.fields;
  const size = v.board.size;
  const cells = [];
  const changed = new Set();
  if (before) {
    before.board.fields.forEach((f, i) => {
      if (JSON.stringify(f.piece) !== JSON.stringify(fields[i].piece)) changed.add(f.field);
    });
  }
  for (let rank = size - 1; rank >= 0; rank -= 1) {
    cells.push(h("span", { class: "coord", "aria-hidden": "true" }, rank + 1));
    for (let file = 0; file < size; file += 1) {
      const f = fields[rank * size + file];
      const p = f.piece;
      const what = p ? `${p.side}${p.monument ? " monument" : " stone"}${p.monument && p.movable ? " (movable)" : ""}` : "empty";
      const kind = f.kind === "neutral" ? "" : `, ${f.kind}-only field`;
      cells.push(h("div", {
        class: `field ${f.shape} k-${f.kind} c-${f.colour}${f.highlighted ? " highlighted" : ""}${changed.has(f.field) ? " changed" : ""}`,
        "data-field": f.field, "data-piece": p ? p.name : "", role: "img", "aria-label": `${f.field}: ${what}${kind}`,
        title: `${f.field}: ${what}${kind}` },
      p ? h("span", { class: `piece ${p.side}${p.monument ? " monument" : ""}`, "aria-hidden": "true" },
        p.monument ? "M" : p.side === "black" ? "b" : "w") : null));
    }
  }
  cells.push(h("span", {}), ...[...v.board.files].map((f) => h("span", { class: "coord", "aria-hidden": "true" }, f)));
  const side = (i) => (i === 0 ? "black" : "white");
  return h("div", { class: "board-wrap" },
    h("div", { class: "board", role: "group", "aria-label": "Board, rank 7 at the top" }, cells),
    h("div", { class: "legend" },
      h("p", {}, `Ply ${v.ply} of ${v.ply_limit}; goal: ${v.goal.replaceAll("_", " ")}.`,
        v.current_player >= 0 ? ` ${side(v.current_player)} (${seats[v.current_player]}) to move.` : ""),
      h("ul", {}, seats.map((name, i) => h("li", { "data-seat": i },
        `${side(i)} (seat ${i}, ${name}): reserve ${v.reserves[side(i)]}, monuments toppled ${v.toppled[side(i)]}`))),
      h("p", {}, "Legend: b/w stones, M monuments (pentagon), + black-only and − white-only fields, dotted frame: highlighted field.")));
}

function scoreTable(replay, frame, drawing) {
  const seats = replay.seats;
  if (drawing.score_table === "final") {
    const r = replay.rounds[0];
    return table(`Result: ${r.end || replay.termination}`, [["Seat"], ["Score", "num"], ["Rank", "num"]],
      seats.map((name, i) => h("tr", { "data-seat": i }, h("td", {}, `${i}: ${name}`),
        h("td", { class: "num final-score" }, replay.scores[i]), h("td", { class: "num" }, replay.ranks[i]))));
  }
  const rows = replay.rounds.map((r, round) => h("tr", { class: round === frame.round ? "current" : "", "data-round": round },
    h("th", { scope: "row" }, `Round ${round + 1}`),
    r.penalties.map((p, i) => h("td", { class: "num", "data-seat": i }, p))));
  rows.push(h("tr", { class: "final" }, h("th", { scope: "row" }, "Final"),
    replay.scores.map((s, i) => h("td", { class: "num final-score", "data-seat": i }, `${s} (rank ${replay.ranks[i]})`))));
  return table(`Penalties per round and final scores (${replay.termination})`,
    [["", ""], ...seats.map((name, i) => [`${i}: ${name}`, "num"])], rows);
}

// -- tournaments -------------------------------------------------------------------------------

async function tournamentsPage() {
  const holder = h("div", {});
  const render = async () => {
    const { tournaments } = await api("/api/tournaments");
    holder.replaceChildren(tournaments.length ? table("Newest first", [["Tournament"], ["Game"], ["Format"], ["Progress"], ["Created", "hide-narrow"]],
      tournaments.map((t) => h("tr", { "data-tournament": t.spec.name },
        h("td", {}, h("a", { href: `#/tournaments/${encodeURIComponent(t.spec.name)}` }, t.spec.name)),
        h("td", {}, t.spec.game), h("td", {}, t.spec.format),
        h("td", { class: "status" }, `${t.done} / ${t.total} (${t.status_text})`,
          t.waiting_for.length ? `; waiting for ${t.waiting_for.join(", ")}` : ""),
        h("td", { class: "hide-narrow" }, when(t.created_ms))))) : h("p", { class: "muted" }, "No tournaments yet."));
  };
  await render();
  show(h("h1", {}, "Tournaments"), holder);
  poll(render, POLL_MS.list);
}

async function tournamentPage(name) {
  const holder = h("div", {});
  const render = async () => {
    const t = await api(`/api/tournaments/${encodeURIComponent(name)}`);
    const rows = t.standings;
    const scored = rows.filter((r) => r.mean_score !== null);
    const lo = Math.min(...scored.map((r) => r.mean_score - (r.ci95 || 0)), 0);
    const hi = Math.max(...scored.map((r) => r.mean_score + (r.ci95 || 0)), 1);
    const pct = (v) => `${((v - lo) / (hi - lo || 1)) * 100}%`;
    const interval = (r) => (r.mean_score === null ? "–" : h("span", { class: "ci", role: "img",
      "aria-label": `95% interval ${fmt(r.mean_score - (r.ci95 || 0))} to ${fmt(r.mean_score + (r.ci95 || 0))}` },
    h("span", { style: `left:${pct(r.mean_score - (r.ci95 || 0))};right:calc(100% - ${pct(r.mean_score + (r.ci95 || 0))})` }),
    h("i", { style: `left:${pct(r.mean_score)}` })));
    fill(holder,
      h("dl", { class: "facts" }, h("dt", {}, "Game"), h("dd", {}, `${t.spec.game} (${t.spec.table_size} per table)`),
        h("dt", {}, "Format"), h("dd", {}, `${t.spec.format}, ${t.spec.rounds} rounds${t.spec.rated ? ", rated" : ""}`),
        h("dt", {}, "Seating"), h("dd", { class: "seating" }, seating(t.spec)),
        h("dt", {}, "Created by"), h("dd", {}, t.created_by || "–"),
        h("dt", {}, "Progress"), h("dd", {}, h("progress", { max: t.total, value: t.done, "aria-label": "Matches played" }),
          ` ${t.done} of ${t.total} matches, `, h("span", { class: "status", "data-status": t.status }, t.status_text)),
        h("dt", {}, "Matches"), h("dd", { class: "counts" },
          `${t.done} done, ${t.due} due, ${t.rerunning} re-running, ${t.aborted} aborted, ${t.cancelled} cancelled`),
        t.cancelled_ms ? [h("dt", {}, "Cancelled"), h("dd", {}, `${when(t.cancelled_ms)} by ${t.cancelled_by}`)] : null,
        t.waiting_for.length ? [h("dt", {}, "Waiting for"), h("dd", { class: "waiting" },
          t.waiting_for.map((bot, i) => [i ? ", " : "", botLink(bot)]), " (registered, not connected to any node)")] : null),
      table(`Standings: mean ${t.score_name} (${t.lower_is_better ? "lower" : "higher"} is better) with its 95% confidence interval` +
        (t.spec.duplicate ? " over per-deal means (the seatings of one deal are not independent)" : ""),
        [["#", "num"], ["Bot"], ["Games", "num"], t.spec.duplicate ? ["Deals", "num"] : null, [`Mean ${t.score_name} ± 95%`, "num"],
          ["Interval", "hide-narrow"], ["Wins", "num"], ["Mean rank", "num"], ["mu ± σ", "num"]].filter(Boolean),
        rows.map((r, i) => h("tr", { "data-bot": r.bot }, h("td", { class: "num" }, i + 1), h("td", {}, botLink(r.bot)),
          h("td", { class: "num" }, r.games), t.spec.duplicate ? h("td", { class: "num" }, r.deals) : null,
          h("td", { class: "num mean" }, r.mean_score === null ? "–" : `${fmt(r.mean_score)}${r.ci95 === null ? "" : ` ± ${fmt(r.ci95)}`}`),
          h("td", { class: "hide-narrow" }, interval(r)), h("td", { class: "num" }, r.wins),
          h("td", { class: "num" }, fmt(r.mean_rank)),
          h("td", { class: "num" }, r.mu === undefined || r.mu === null ? "–" : `${fmt(r.mu)} ± ${fmt(r.sigma)}`))),
        { id: "standings" }),
      headToHead(t),
      t.aborted_matches.length ? table("Aborted attempts: a match aborted by a fault is re-run with the same seed and seats",
        [["Match", "num"], ["Attempt"], ["Reason"], ["Then"]],
        t.aborted_matches.map((a) => h("tr", { "data-match": a.match_id }, h("td", { class: "num" }, a.number),
          h("td", {}, matchLink(a.match_id), ` (${a.attempt})`), h("td", { class: "reason" }, a.reason || "–"),
          h("td", {}, a.rerun ? ["re-run as ", matchLink(a.rerun)] : "not re-run")))) : null,
      h("p", {}, h("a", { href: `#/matches?tournament=${encodeURIComponent(name)}` }, "Matches of this tournament")));
    return !t.finished_ms;
  };
  await render();
  show(h("h1", {}, `Tournament ${name}`), holder);
  poll(render, POLL_MS.list);
}

function seating(spec) {
  if (!spec.duplicate) return "each deal played once";
  return `duplicate, seat-fair${spec.seatings > 0 ? `, ${plural(spec.seatings, "seating")} per deal` : ""}`;
}

function headToHead(t) {
  // Every pair is listed once, better placed first; the mirror cell reads it from the other side.
  const bots = t.standings.filter((r) => r.games > 0).map((r) => r.bot);
  if (bots.length < 2) return null;
  const pairs = new Map(t.head_to_head.map((p) => [JSON.stringify([p.first, p.second]), p]));
  const compare = (row, col) => {
    const pair = pairs.get(JSON.stringify([row, col]));
    if (pair) return pair;
    const mirror = pairs.get(JSON.stringify([col, row]));
    return { ...mirror, advantage: mirror.advantage === null ? null : -mirror.advantage };
  };
  const cell = (row, col) => {
    if (row === col) return h("td", { class: "h2h-self" });
    const pair = compare(row, col);
    const adv = pair.advantage;
    if (adv === null) {
      const said = `${row} and ${col} have not played a deal together yet`;
      return h("td", { class: "num h2h-open", "data-state": "open", "data-row": row, "data-col": col, title: said, "aria-label": said }, "–");
    }
    const state = !pair.established ? "open" : adv > 0 ? "better" : "worse";
    const sign = adv > 0 ? "+" : adv < 0 ? "−" : "";
    const ci = pair.ci95 === null ? "" : ` ± ${fmt(pair.ci95)}`;
    const spread = pair.ci95 === null ? "too few shared deals for an interval" : `95% interval ±${fmt(pair.ci95)}`;
    const how = adv === 0 ? `the same ${t.score_name} per deal as`
      : `${fmt(Math.abs(adv))} ${t.score_name} ${adv < 0 ? "worse" : "better"} per deal than`;
    const said = `${row} scores ${how} ${col} over ${plural(pair.deals, "shared deal")} (${spread}): ` +
      (pair.established ? "established" : "not established yet");
    return h("td", { class: `num h2h-${state}`, "data-state": state, "data-row": row, "data-col": col, title: said, "aria-label": said },
      `${sign}${fmt(Math.abs(adv))}${ci}`);
  };
  const better = t.lower_is_better ? "fewer" : "more";
  return h("section", { id: "head-to-head", "aria-labelledby": "head-to-head-title" },
    h("h2", { id: "head-to-head-title" }, "Head to head"),
    table(`The row bot's advantage over the column bot in ${t.score_name} per deal, on the deals both played, ± its 95% ` +
      `interval; positive is better (${better} ${t.score_name}). Bold with a bar: established, the interval excludes 0 ` +
      "(green: the row bot is better, red: worse).",
    [["", ""], ...bots.map((bot) => [bot, "num"])],
    bots.map((row) => h("tr", { "data-bot": row }, h("th", { scope: "row" }, row), bots.map((col) => cell(row, col)))),
    { class: "scroll matrix" }),
    h("ul", { class: "order-notes" }, t.unsettled.length
      ? t.unsettled.map(([upper, lower]) => h("li", { "data-upper": upper, "data-lower": lower },
        `Not yet established: ${upper} above ${lower} (more deals may settle it, or show them equal)`))
      : h("li", {}, "Every neighbour's place in the standings is established.")));
}

// -- the API -----------------------------------------------------------------------------------

async function apiPage() {
  const spec = await api("/api/openapi.json");
  const rows = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters || []).map((p) => `${p.name} (${p.in})`).join(", ");
      rows.push(h("tr", {}, h("td", {}, h("code", {}, `${method.toUpperCase()} ${path}`)), h("td", {}, params || "–"),
        h("td", { style: "white-space:normal" }, op.description || op.summary || "")));
    }
  }
  show(h("h1", {}, "JSON API"),
    h("p", {}, "Read-only, no token needed. The OpenAPI description: ", h("a", { href: "/api/openapi.json" }, "/api/openapi.json"),
      ". Errors are JSON with a one-line ", h("code", {}, "detail"), ": 404 for an unknown game, bot, match or tournament, 422 for a bad parameter."),
    table("Endpoints", [["Endpoint"], ["Parameters"], ["What it gives"]], rows));
}
