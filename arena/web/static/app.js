// Thirteen Arena web UI: hash routes over the read-only JSON API, no framework, no build step.
import { h, svg, api, fmt, when, botLink, matchLink, table, fill, say, poll, stopPolling, plural, state, endWords, ordinal, signed,
  markScrollers, follow, stopFollowing }
  from "./util.js";
import { replayViewer, renderView, describeMove } from "./replay.js";
import { mePage, challengePage } from "./account.js";

const view = document.getElementById("view");
const POLL_MS = { list: 2000, live: 1000 };

function show(...nodes) {
  fill(view, ...nodes);
}

// Pages redraw their tables as data comes in, and the window may be resized: keep the scrolling boxes focusable.
new MutationObserver(() => requestAnimationFrame(() => markScrollers(view))).observe(view, { childList: true, subtree: true });
window.addEventListener("resize", () => markScrollers(view));

// -- routing -----------------------------------------------------------------------------------

const routes = [
  [/^\/?$/, () => leaderboardPage(null)],
  [/^\/leaderboards\/([^/]+)$/, (game) => leaderboardPage(game)],
  [/^\/bots$/, () => botsPage()],
  [/^\/bots\/([^/]+)$/, (name) => botPage(name)],
  [/^\/matches$/, (params) => matchesPage(params)],
  [/^\/matches\/([^/]+)$/, (id, params) => matchPage(id, params)],
  [/^\/tournaments$/, () => tournamentsPage()],
  [/^\/tournaments\/([^/]+)$/, (name) => tournamentPage(name)],
  [/^\/api$/, () => apiPage()],
  [/^\/(me|signin)$/, () => mePage()],
  [/^\/challenge$/, () => challengePage()],
];

async function route() {
  stopPolling();
  stopFollowing();
  delete view.dataset.transport;
  state.keyHandler = null;
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
  if (state.keyHandler && !event.target.closest("input, select, textarea")) state.keyHandler(event);
});

// -- leaderboards ------------------------------------------------------------------------------

async function leaderboardPage(game) {
  // One round of requests, not three in a row: the home page's summary carries the board it opens on.
  const boardOf = (name) => api(`/api/leaderboards/${encodeURIComponent(name)}`);
  const [games, first] = await Promise.all([api("/api/games"),
    game ? boardOf(game) : api("/api/leaderboards").then((summary) => summary.board)]);
  game = first.game;
  const tabs = h("ul", { class: "tabs" }, games.map((g) => h("li", {}, h("a", {
    href: `#/leaderboards/${g.name}`, "aria-current": g.name === game ? "page" : null }, g.name))));
  const holder = h("div", {});
  const draw = (board) => {
    const neighbours = board.neighbours || [];
    const rows = board.rows.map((row, i) => h("tr", { "data-bot": row.bot },
      h("td", { class: "num" }, row.rank),
      h("td", {}, botLink(row.bot), row.version ? h("span", { class: "muted" }, ` v${row.version}`) : null,
        row.provisional ? h("span", { class: "muted", title: "too few rated matches (or a new version) for the place to mean much yet" }, " provisional") : null),
      h("td", { class: "num" }, fmt(row.conservative)), h("td", { class: "num" }, `${fmt(row.mu)} ± ${fmt(row.sigma)}`),
      h("td", { class: "num" }, row.games), h("td", { class: "order" }, orderMarker(neighbours[i])),
      h("td", { class: "hide-narrow" }, when(row.last_ms))));
    holder.replaceChildren(rows.length
      ? table(`${game}: best first by the conservative rating mu − 3σ (updates as matches finish)`,
        [["Rank", "num"], ["Bot"], ["Rating", "num"], ["mu ± σ", "num"], ["Games", "num"], ["Above the next"], ["Last played", "hide-narrow"]],
        rows, { stack: true })
      : h("p", { class: "muted" }, `No rated ${game} matches yet.`));
  };
  draw(first);
  show(h("h1", {}, "Leaderboards"), h("nav", { "aria-label": "Games" }, tabs), holder);
  poll(async () => draw(await boardOf(game)), POLL_MS.list);
}

// Whether a bot's place above the next one is established at 95%, and since how many matches.
function orderMarker(order) {
  if (!order) return "";
  if (!order.established) return h("span", { class: "muted", title: `z ${fmt(order.z)}, 1.96 needed` }, "not established yet");
  if (!order.since_games) return "established";
  return `established since ${order.since_games} matches${order.since_earlier ? " or earlier" : ""}`;
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
    data.hosted_versions ? hostedVersions(data.hosted_versions) : null,
    sections.length ? sections : h("p", { class: "muted" }, "No rated matches yet."),
    h("h2", {}, "Recent matches"), matchTable(data.matches, "Latest first, with this bot's rank, score and rating change", bot.name),
    h("p", {}, h("a", { href: `#/matches?bot=${encodeURIComponent(bot.name)}` }, "All matches of this bot")),
    rivalsTable(data.rivals));
}

function hostedVersions(versions) {
  if (!versions.length) return h("p", { class: "muted", id: "hosted-versions" }, "No version uploaded yet.");
  return h("section", { id: "hosted-versions" }, h("h2", {}, "Uploaded versions"),
    table("Newest first; the active version plays the bot's matches", [["Version", "num"], ["Status"], ["Uploaded"], ["Validation match"]],
      versions.map((v) => h("tr", { "data-version": v.version },
        h("td", { class: "num" }, `v${v.version}`),
        h("td", { class: "status" }, `${v.status}${v.active ? " (active)" : ""}${v.reason ? `: ${v.reason}` : ""}`),
        h("td", {}, when(v.created_ms)), h("td", {}, v.match_id ? matchLink(v.match_id) : "–")))));
}

function rivalsTable(rivals) {
  if (!rivals.length) return null;
  return h("section", { id: "rivals" }, h("h2", {}, "Head to head"),
    table("Against each opponent in the matches both played: wins and losses count who ranked higher; " +
      "the rank difference is the opponent's rank minus this bot's (positive: this bot placed better)",
    [["Opponent"], ["Matches", "num"], ["Wins", "num"], ["Losses", "num"], ["Mean rank difference", "num"]],
    rivals.map((r) => h("tr", { "data-opponent": r.opponent }, h("td", {}, botLink(r.opponent)),
      h("td", { class: "num" }, r.matches), h("td", { class: "num" }, r.wins), h("td", { class: "num" }, r.losses),
      h("td", { class: "num" }, signed(r.mean_rank_difference)))), { stack: true }));
}

function ratingPlot(game, history) {
  // mu after each rated match as a line, mu ± sigma as a band; x is the match count. Each match is a
  // point that links to it (hover or focus it for the match and its rating). Drawn narrower on a
  // phone, so that its labels keep their size instead of being scaled down with a wide plot.
  const narrow = window.innerWidth < 600;
  const W = narrow ? 360 : 640, H = narrow ? 220 : 240, L = 40, R = 12, T = 12, B = 30;
  const points = history.map((p, i) => ({ x: i + 1, mu: p.mu, sigma: p.sigma, lo: p.mu - p.sigma, hi: p.mu + p.sigma,
    match: p.match_id }));
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
    `sigma now ${fmt(last.sigma)}`;
  const dot = (p) => {
    const said = `Match ${p.x}, ${p.match}: mu ${fmt(p.mu)} ± ${fmt(p.sigma)}`;
    return svg("a", { href: `#/matches/${encodeURIComponent(p.match)}`, class: "point", "data-match": p.match, "aria-label": said },
      svg("title", {}, said), svg("circle", { class: "mu-dot", cx: x(p.x), cy: y(p.mu), r: points.length <= 60 ? 4 : 2.5 }));
  };
  return h("figure", { class: "plot-box" }, svg("svg", { class: "plot", viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": label },
    svg("title", {}, label), ...ticks,
    svg("polygon", { class: "band", points: band.join(" ") }),
    svg("polyline", { class: "mu", points: points.map((p) => `${x(p.x)},${y(p.mu)}`).join(" ") }),
    // A band and a line need two points: a lone rating shows as a dot with its sigma as a bar.
    ...(points.length === 1 ? [svg("line", { class: "sigma-bar", x1: x(1), x2: x(1), y1: y(last.lo), y2: y(last.hi) })] : []),
    svg("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }),
    svg("text", { x: L, y: H - 10 }, "1"), svg("text", { x: W - R, y: H - 10, "text-anchor": "end" }, plural(points.length, "match", "matches")),
    svg("text", { x: (W + L) / 2, y: H - 10, "text-anchor": "middle" }, narrow ? "mu ± sigma" : "mu (line) ± sigma (band)"),
    points.map(dot)),
  h("figcaption", { class: "muted" }, "Each point is a rated match: hover or focus it to see which, select it to open it."));
}

// -- matches -----------------------------------------------------------------------------------

function matchTable(matches, caption, own = null) {
  // The winners (ranked first) are marked in the seats; the end is said only when it was not the normal one.
  // A bot's own page adds its rank, score and rating change in each match.
  if (!matches.length) return h("p", { class: "muted" }, "No matches.");
  const seatsCell = (m) => h("td", { class: "seats-cell" }, m.seats.map((seat, i) => {
    const won = m.winners.includes(i);
    // A space between the seats lets the cell wrap there, never inside a seat.
    return [i ? " " : "", h("span", { class: `seat-result${won ? " winner" : ""}`, "data-seat": i },
      won ? h("span", { class: "won", "aria-label": "winner", title: "winner" }, "★ ") : null,
      botLink(seat), m.scores.length ? ` ${m.scores[i]}` : "")];
  }));
  const result = (m) => {
    if (m.running) return h("span", { class: "live-badge" }, "LIVE");
    const names = m.winners.map((i) => m.seats[i]).join(" and ");
    const note = m.termination && m.termination !== "normal" ? endWords(m.termination) : "";
    return [names ? `won by ${names}` : "", names && note ? "; " : "", note];
  };
  const mine = (m) => {
    const seat = m.seats.indexOf(own);
    if (m.running || seat < 0 || !m.ranks.length) return [h("td", { class: "num" }, "–"), h("td", { class: "num" }, "–"), h("td", { class: "num" }, "–")];
    return [h("td", { class: "num own-rank" }, `${ordinal(m.ranks[seat])} of ${m.seats.length}`),
      h("td", { class: "num own-score" }, m.scores[seat]),
      h("td", { class: "num own-change" }, m.rating_change === null || m.rating_change === undefined ? "–" : signed(m.rating_change))];
  };
  const heads = [["Match"], ["Game"], ["Seats and scores (★ winner)"], ["Result"],
    ...(own ? [["Rank", "num"], ["Score", "num"], ["Rating ±", "num"]] : []), ["Tournament", "hide-narrow"], ["Started", "hide-narrow"]];
  return table(caption, heads,
  matches.map((m) => h("tr", { "data-match": m.match_id },
    h("td", {}, matchLink(m.match_id)), h("td", {}, m.game), seatsCell(m), h("td", { class: "result" }, result(m)),
    own ? mine(m) : null,
    h("td", { class: "hide-narrow" }, m.tournament_id ? h("a", { class: "name", href: `#/tournaments/${encodeURIComponent(m.tournament_id)}` }, m.tournament_id) : "–"),
    h("td", { class: "hide-narrow nowrap" }, when(m.started_ms)))), { stack: true });
}

const PAGE_ROWS = 50;
/* Pages follow the API's cursors: `before` a match for the older page, `after` one for the newer, so a
   page holds still as new matches arrive and the list reaches back as far as Redis holds matches. */

async function matchesPage(params) {
  const filters = { game: params.get("game") || "", bot: params.get("bot") || "", tournament: params.get("tournament") || "" };
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
  const cursor = params.get("before") ? ["before", params.get("before")] : params.get("after") ? ["after", params.get("after")] : null;
  const asked = new URLSearchParams([...query, ["limit", PAGE_ROWS], ...(cursor ? [cursor] : [])]);
  const listing = () => api(`/api/matches?${asked}`);
  // The games (for the form) and the first page of matches in one round of requests, not two in a row.
  const [games, first] = await Promise.all([api("/api/games"), listing().catch((error) => ({ error }))]);
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
  const pageLink = (side, id, text, rel) => {
    const linked = new URLSearchParams(query);
    if (side) linked.set(side, id);
    return h("a", { href: `#/matches${linked.toString() ? "?" + linked : ""}`, rel, class: `page-${rel}` }, text);
  };
  const render = async (answered) => {
    const { matches, older, newer } = answered || await listing();
    const said = cursor ? `Newest first, ${cursor[0] === "before" ? "older" : "newer"} than match ${cursor[1]}`
      : "Newest first";
    fill(holder, matches.length || !cursor ? matchTable(matches, said)
      : h("p", { class: "muted" }, "No matches this far back."),
    h("nav", { class: "pager", "aria-label": "Pages of matches" },
      cursor ? pageLink(null, null, "⇤ Newest", "first") : null,
      newer ? pageLink("after", newer, "← Newer", "prev") : null,
      older ? pageLink("before", older, "Older →", "next") : null));
  };
  try {
    if (first.error) throw first.error;
    await render(first);
  } catch (error) {
    // A mistyped filter is answered on this page, beside the form, with the field marked.
    show(h("h1", {}, "Matches"), form, await filterError(form, filters, games, error));
    return;
  }
  show(h("h1", {}, "Matches"), form, holder);
  // Only the newest page follows new matches: an older one holds still for its reader.
  if (!cursor) poll(() => render(), POLL_MS.list);
}

async function filterError(form, filters, games, error) {
  // The API names the first unknown filter with the JSON endpoint that lists its kind; the page asks
  // about each filter so that it can name the field and point at the page that lists them instead.
  const known = async (path) => api(path).then(() => true, () => false);
  const problems = [];
  if (filters.game && !games.some((g) => g.name === filters.game)) {
    problems.push(["game", [`No game “${filters.game}”: the arena plays ${games.map((g) => g.name).join(", ")}.`]]);
  }
  if (filters.bot && !(await known(`/api/bots/${encodeURIComponent(filters.bot)}`))) {
    problems.push(["bot", [`No bot named “${filters.bot}”: `, h("a", { href: "#/bots" }, "the bots page"), " lists them."]]);
  }
  if (filters.tournament && !(await known(`/api/tournaments/${encodeURIComponent(filters.tournament)}`))) {
    problems.push(["tournament", [`No tournament named “${filters.tournament}”: `, h("a", { href: "#/tournaments" },
      "the tournaments page"), " lists them."]]);
  }
  if (!problems.length) problems.push(["", [`The matches could not be listed: ${error.message}`]]);
  for (const [field] of problems) {
    const input = field && form.querySelector(`[name="${field}"]`);
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", "filter-error");
    }
  }
  return h("div", { class: "error", id: "filter-error", role: "alert" }, problems.map(([, words]) => h("p", {}, words)));
}

async function matchPage(id, params = new URLSearchParams()) {
  const data = await api(`/api/matches/${encodeURIComponent(id)}`);
  const m = data.match;
  const heading = h("h1", {}, `Match ${m.match_id}: ${m.game}`);
  const facts = h("dl", { class: "facts" },
    h("dt", {}, "Seats"), h("dd", {}, m.seats.map((s, i) => [i ? ", " : "", `${i}: `, botLink(s)])),
    h("dt", {}, "Started"), h("dd", {}, when(m.started_ms)),
    m.tournament_id ? [h("dt", {}, "Tournament"), h("dd", {}, h("a", { href: `#/tournaments/${encodeURIComponent(m.tournament_id)}` }, m.tournament_id))] : null,
    h("dt", {}, "Status"), h("dd", { id: "match-status" }, m.running ? "running" : `ended: ${endWords(m.termination)}`),
    m.winners.length ? [h("dt", {}, "Won by"), h("dd", { id: "match-winners" }, m.winners.map((i, k) => [k ? ", " : "", botLink(m.seats[i])]))] : null);
  if (data.live) {
    const holder = h("div", {});
    const render = (live, match) => holder.replaceChildren(h("p", { class: "live-note" }, h("span", { class: "live-badge" }, "LIVE"),
      " Public view, updated as the moves are played; hands are shown once the match has ended."),
    h("p", { class: "move-text", id: "move-text" }, liveMove(live, match, data.drawing)),
    renderView(live.view, data.drawing, match.seats, null, null));
    render(data.live, m);
    show(heading, facts, holder);
    const polling = () => poll(async () => {
      const next = await api(`/api/matches/${encodeURIComponent(id)}`);
      if (!next.live) {
        await matchPage(id, params);
        return false;
      }
      render(next.live, next.match);
      return true;
    }, POLL_MS.live);
    follow(`/api/matches/${encodeURIComponent(id)}/stream`, {
      update: (next) => next.live && render(next.live, next.match),
      end: () => matchPage(id, params),
      fallback: polling,
    });
    return;
  }
  if (data.sealed) {
    show(heading, facts, h("p", {}, `Ended. Its replay is held back: ${data.sealed}.`));
    return;
  }
  if (!data.replay) {
    show(heading, facts, h("p", {}, m.running
      ? "This match runs on another arena node; its replay appears here when it ends."
      : "This match was aborted before it ended; there is no replay."));
    if (m.running) poll(async () => { await matchPage(id); return false; }, POLL_MS.live);
    return;
  }
  const download = h("p", {}, h("a", { class: "download", href: `/api/matches/${encodeURIComponent(id)}/replay`,
    download: `${id}.json` }, "Download the replay"), " (arena-replay/1 JSON, as ", h("code", {}, "arena match export"),
  " writes it).");
  show(heading, facts, download, replayViewer(data.replay, data.frames, data.drawing, Number(params.get("step") || 0),
    (step) => history.replaceState(null, "", `#/matches/${encodeURIComponent(id)}${step ? `?step=${step}` : ""}`),
    data.faults || []));
}

// -- the replay viewer -------------------------------------------------------------------------
function liveMove(live, match, drawing) {
  // The last move drawn as the replay draws it (cards as cards), from the public record of the moves.
  const rounds = (live.record && live.record.rounds) || [];
  for (let round = rounds.length - 1; round >= 0; round -= 1) {
    const moves = rounds[round].moves || [];
    const move = moves[moves.length - 1];
    if (move && (move.card !== undefined || move.move !== undefined)) {
      return describeMove({ seats: match.seats }, { move, round }, drawing);
    }
  }
  return [live.last_move || "No move yet."];
}

// -- tournaments -------------------------------------------------------------------------------

async function tournamentsPage() {
  const holder = h("div", {});
  const render = async () => {
    const { tournaments } = await api("/api/tournaments");
    holder.replaceChildren(tournaments.length ? table("Newest first", [["Tournament"], ["Game"], ["Format"], ["Progress"], ["Winner"],
      ["Created", "hide-narrow"]],
      tournaments.map((t) => h("tr", { "data-tournament": t.spec.name },
        h("td", {}, h("a", { href: `#/tournaments/${encodeURIComponent(t.spec.name)}` }, t.spec.name)),
        h("td", {}, t.spec.game), h("td", {}, t.spec.format),
        h("td", { class: "status" }, `${t.done} / ${t.total} (${t.status_text})`,
          t.waiting_for.length ? `; waiting for ${t.waiting_for.join(", ")}` : ""),
        h("td", { class: "winner" }, t.winner ? ["★ ", botLink(t.winner)] : t.finished_ms ? "–" : "not yet"),
        h("td", { class: "hide-narrow nowrap" }, when(t.created_ms))))) : h("p", { class: "muted" }, "No tournaments yet."));
  };
  await render();
  show(h("h1", {}, "Tournaments"), holder);
  poll(render, POLL_MS.list);
}

async function tournamentPage(name) {
  const holder = h("div", {});
  const draw = (t) => {
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
        h("dt", {}, "Format"), h("dd", {}, `${t.spec.format}, ${plural(t.spec.rounds, "round")}${t.spec.rated ? ", rated" : ""}`),
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
        { id: "standings", stack: true }),
      // However many tables play at once, one line: their count and one of them to watch.
      t.playing.length ? h("p", { id: "playing", class: "live-note" }, h("span", { class: "live-badge" }, "LIVE"),
        ` ${plural(t.playing.length, "match", "matches")} being played now: watch `, matchLink(t.playing[0]),
        t.playing.length > 1 ? [" or ", h("a", { href: `#/matches?tournament=${encodeURIComponent(name)}` }, "list them all")] : null,
        ".") : null,
      headToHead(t),
      t.finished_ms ? paths(t) : null,
      // Folded whatever their number (the counts above say how many): a busy fleet's tournament may have
      // dozens, and the page keeps its height.
      t.aborted_matches.length ? collapsed(true, `${plural(t.aborted_matches.length, "aborted attempt")}: why, and their re-runs`,
        table("Aborted attempts: a match aborted by a fault is re-run with the same seed and seats",
          [["Match", "num"], ["Attempt"], ["Reason"], ["Then"]],
          t.aborted_matches.map((a) => h("tr", { "data-match": a.match_id }, h("td", { class: "num" }, a.number),
            h("td", {}, attemptLink(a.match_id, a.attempt)), h("td", { class: "reason" }, a.reason || "–"),
            h("td", {}, a.rerun ? ["re-run as ", attemptLink(a.rerun, a.attempt + 1)] : "not re-run"))))) : null,
      h("p", {}, h("a", { href: `#/matches?tournament=${encodeURIComponent(name)}` }, "Matches of this tournament")));
  };
  const url = `/api/tournaments/${encodeURIComponent(name)}`;
  const first = await api(url);
  draw(first);
  show(h("h1", {}, `Tournament ${name}`), holder);
  if (first.finished_ms || first.cancelled_ms) return;
  follow(`${url}/stream`, { update: draw, end: draw, fallback: () => poll(async () => {
    const t = await api(url);
    draw(t);
    return !t.finished_ms && !t.cancelled_ms;
  }, POLL_MS.list) });
}

/* An attempt named by its number, its match id (the tournament's name and more) kept for the link and
   its tooltip: on a phone forty-character ids in a narrow column made each row a dozen lines tall. */
const attemptLink = (id, attempt) => h("a", { class: "name", href: `#/matches/${encodeURIComponent(id)}`, title: id },
  `attempt ${attempt}`);

const FEW_ROWS = 8;
/* Up to this many rows (a bot's matches) are shown open; more fold into a <details>. */

function collapsed(closed, summary, content) {
  return closed ? h("details", { class: "fold" }, h("summary", {}, summary), content) : content;
}

function paths(t) {
  // Each bot's way through the finished tournament, in standing order: its places in a line, and per
  // round its matches with place, score and table. A long path folds into its count (a 500-match
  // tournament gives each bot hundreds), so the page keeps its height whatever the tournament's size.
  const places = (steps) => {
    const counts = new Map();
    for (const s of steps) counts.set(s.rank, (counts.get(s.rank) || 0) + 1);
    return [...counts].sort(([a], [b]) => a - b).map(([rank, n]) => `${ordinal(rank)} ×${n}`).join(", ") || "–";
  };
  const rounds = (steps) => h("ol", { class: "path" }, Array.from({ length: t.spec.rounds }, (_, r) => {
    const mine = steps.filter((s) => s.round === r);
    return mine.length ? h("li", { "data-round": r, value: r + 1 }, `Round ${r + 1}: `, mine.map((s, k) => [k ? "; " : "",
      h("a", { href: `#/matches/${encodeURIComponent(s.match_id)}`, "data-match": s.match_id }, `${ordinal(s.rank)} of ${s.players}`),
      ` (${s.score}, table ${s.table + 1})`])) : null;
  }));
  return h("section", { id: "paths", "aria-labelledby": "paths-title" }, h("h2", { id: "paths-title" }, "Each bot's path"),
    table(`Each bot's places, and round by round its place at each table (its ${t.score_name} and the table in brackets); ` +
      "each links to the match",
    [["Bot"], ["Matches", "num"], ["Places"], ["Round by round"]],
    t.standings.map((row) => {
      const steps = t.paths[row.bot] || [];
      return h("tr", { "data-bot": row.bot }, h("th", { scope: "row" }, botLink(row.bot)),
        h("td", { class: "num" }, steps.length), h("td", { class: "places" }, places(steps)),
        h("td", { class: "path-cell" }, steps.length ? collapsed(steps.length > FEW_ROWS,
          `${plural(steps.length, "match", "matches")} in ${plural(new Set(steps.map((s) => s.round)).size, "round")}`,
          rounds(steps)) : "–"));
    }), { stack: true }));
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
    { class: "matrix" }),
    orderNotes(t.unsettled));
}

// The neighbours whose order is not established, under one lead-in and one short line each; folded into a
// count beyond three, so that a big field's page stays short (a phone wraps each long name on a line of its own).
function orderNotes(unsettled) {
  if (!unsettled.length) {
    return h("div", { class: "order-notes" }, h("p", {}, "Every neighbour's place in the standings is established."));
  }
  const notes = h("div", { class: "order-notes" },
    h("p", {}, "Not yet established (more deals may settle them, or show them equal):"),
    h("ul", {}, unsettled.map(([upper, lower]) => h("li", { "data-upper": upper, "data-lower": lower },
      `${upper} above ${lower}`))));
  if (unsettled.length <= 3) return notes;
  return h("details", { class: "order-notes-folded" },
    h("summary", {}, `${unsettled.length} neighbours' order not yet established`), notes);
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

// The first page, once every constant above has its value (a page may use one before its first await).
route();
