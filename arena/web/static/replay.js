// The replay viewer and the game drawings (cards, board, facts), shared by replays and live matches.
import { h, svg, table, say, state, endWords } from "./util.js";

export function replayViewer(replay, frames, drawing, start = 0, moved = () => {}, faults = []) {
  // `start`: the step to open on (a linked one); `moved(step)` is told every step taken after that.
  // `faults`: the match's forfeits and strikes in words (the API's "faults"), listed with a link to each one's step.
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
  const clock = h("p", { class: "move-clock muted", id: "move-clock" });
  const why = h("ul", { class: "move-faults", id: "move-faults" });
  const said = h("div", { class: "move-debug", id: "move-debug" });
  // Each move frame's place among the match's moves: the index into the record's clock.
  let counted = -1;
  const moveIndex = frames.map((frame) => (frame.move ? (counted += 1) : null));
  // The step showing move number `move`: a forfeit after the last move (or a record without moves) goes to the end.
  const stepOf = (move) => {
    const found = moveIndex.findIndex((m) => m !== null && m >= move);
    return found < 0 ? frames.length - 1 : found;
  };
  const board = h("div", {});
  const scores = h("div", {});
  const roundStart = (i, direction) => {
    const round = frames[i].round + direction;
    const found = frames.findIndex((f) => f.round === round);
    return found < 0 ? (direction < 0 ? 0 : frames.length - 1) : found;
  };
  // Playing: a step every 1/speed seconds from where it stands, until the end, a pause, or another page.
  let player = null;
  const play = h("button", { type: "button", class: "play", title: "Play or pause (space)", "aria-pressed": "false" },
    "▶ Play");
  const speed = h("select", { class: "speed", "aria-label": "Steps per second", title: "Steps per second" },
    SPEEDS.map((s) => h("option", { value: s, selected: s === 2 }, `${s} steps/s`)));
  const pause = () => {
    clearTimeout(player);
    player = null;
    play.textContent = "▶ Play";
    play.setAttribute("aria-pressed", "false");
  };
  const tick = () => {
    if (!play.isConnected) return pause();
    go(index + 1, false, true);
    if (index >= frames.length - 1) return pause();
    player = setTimeout(tick, 1000 / Number(speed.value));
  };
  play.onclick = () => {
    if (player !== null) return pause();
    if (index >= frames.length - 1) go(0);
    play.textContent = "❚❚ Pause";
    play.setAttribute("aria-pressed", "true");
    player = setTimeout(tick, 1000 / Number(speed.value));
  };
  const go = (target, quiet = false, playing = false) => {
    index = Math.max(0, Math.min(frames.length - 1, target));
    const frame = frames[index];
    const previous = index > 0 ? frames[index - 1] : null;
    slider.value = index;
    const rounds = replay.rounds.length;
    const moves = replay.rounds[frame.round].moves.length;
    status.textContent = `Step ${index} of ${frames.length - 1} · round ${frame.round + 1} of ${rounds} · ` +
      `move ${countMoves(frames, index)} of ${moves}`;
    moveText.replaceChildren(...describeMove(replay, frame, drawing));
    clock.replaceChildren(...clockOf(replay, moveIndex[index]));
    const here = (move) => stepOf(move) === index;
    why.replaceChildren(...faults.filter((f) => f.forfeit && f.move >= 0 && here(f.move))
      .map((f) => h("li", { class: "strike" }, f.words)));
    said.replaceChildren(...debugAt(replay, moveIndex[index]));
    board.replaceChildren(renderView(frame.view, drawing, replay.seats, frame.hands || null, frame.move,
      previous && previous.view));
    scores.replaceChildren(scoreTable(replay, frame, drawing));
    buttons.first.disabled = buttons.prev.disabled = buttons.prevRound.disabled = index === 0;
    buttons.last.disabled = buttons.next.disabled = buttons.nextRound.disabled = index === frames.length - 1;
    // A screen reader hears each step taken, not each step played: it would talk over the game.
    if (!playing) say(`${status.textContent}. ${moveText.textContent}`);
    if (!quiet) moved(index);
  };
  buttons.first.onclick = () => go(0);
  buttons.prev.onclick = () => go(index - 1);
  buttons.next.onclick = () => go(index + 1);
  buttons.last.onclick = () => go(frames.length - 1);
  buttons.prevRound.onclick = () => go(frames[index].move === null ? roundStart(index, -1) : roundStart(index, 0));
  buttons.nextRound.onclick = () => go(roundStart(index, 1));
  slider.oninput = () => go(Number(slider.value));
  state.keyHandler = (event) => {
    const actions = { ArrowRight: buttons.next, ArrowLeft: buttons.prev, Home: buttons.first, End: buttons.last,
      PageDown: buttons.nextRound, PageUp: buttons.prevRound, " ": play };
    // Space on a focused button presses that button already.
    const button = event.key === " " && event.target.closest("button, a, summary") ? null : actions[event.key];
    if (button && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      button.click();
    }
  };
  const viewer = h("section", { class: "viewer", id: "replay", tabindex: 0, "aria-label": "Replay viewer" },
    h("div", { class: "controls" }, buttons.first, buttons.prevRound, buttons.prev, buttons.next, buttons.nextRound,
      buttons.last, slider, play, speed),
    h("p", { class: "keys" }, "Keys: ", h("kbd", {}, "←"), " ", h("kbd", {}, "→"), " move, ", h("kbd", {}, "PgUp"), " ",
      h("kbd", {}, "PgDn"), " round, ", h("kbd", {}, "Home"), " ", h("kbd", {}, "End"), " start and end, ",
      h("kbd", {}, "Space"), " play and pause."),
    status, moveText, clock, why, said, board, scores,
    h("p", { class: "muted" }, `Seed ${replay.seed}, commitment ${replay.seed_commitment}.`));
  go(Number.isInteger(start) ? start : 0, true);
  if (!faults.length) return viewer;
  // Why seats lost, above the viewer: each forfeit and strike in words, with a button to its step.
  const list = h("section", { class: "faults", id: "faults", "aria-label": "Forfeits and strikes" },
    h("h2", {}, "Forfeits and strikes"),
    h("ul", {}, faults.map((f) => h("li", { class: f.forfeit ? "forfeit" : "", "data-seat": f.seat }, f.words,
      f.move >= 0 ? [" ", h("button", { type: "button", class: "link", onclick: () => go(stepOf(f.move)) },
        `step ${stepOf(f.move)}`)] : null))));
  return h("div", {}, list, viewer);
}

const SPEEDS = [1, 2, 4, 8, 16];
/* Steps a second when playing: 2 follows a card game's moves; 16 plays a long board game in a minute. */

function debugAt(replay, move) {
  // What the bots said about move number `move` (their debug output): in the record once the match has ended.
  if (move === null || !replay.debug) return [];
  return replay.debug.filter(([at]) => at === move).map(([, seat, text]) => h("div", { "data-seat": seat },
    h("p", { class: "label" }, `Seat ${seat} (${replay.seats[seat]}) said:`), h("pre", { class: "debug" }, text)));
}

export function clockOf(replay, move) {
  // What the clock said of move number `move`: the seat's think time and bank left, and its strikes.
  const clock = replay.clock;
  if (!clock) return move === null ? [] : ["No clock: every seat was a built-in bot."];
  if (move === null) {
    return [`Clock: ${seconds(clock.per_move_ms)} a move and a bank of ${seconds(clock.bank_ms)} per seat.`];
  }
  const timing = clock.moves[move];
  const parts = [timing ? `Thought ${timing[0]} ms; bank ${seconds(timing[1])} left.`
    : "Not timed (a built-in bot, a forfeited seat, or a move made before the match was resumed)."];
  for (const [index, seat, message] of clock.strikes) {
    if (index === move) parts.push(" ", h("strong", { class: "strike" }, `Seat ${seat}: ${message}`));
  }
  return parts;
}

function seconds(ms) {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function countMoves(frames, index) {
  // The move's number within its round: frames since the round's first frame.
  let start = index;
  while (start > 0 && frames[start].move !== null) start -= 1;
  return index - start;
}

export function describeMove(replay, frame, drawing) {
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

export function card(text, drawing, small) {
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

export function renderView(viewData, drawing, seats, hands, move, before) {
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
      // The samples carry the fields' own classes, so the legend shows exactly what the board draws.
      h("p", { class: "board-legend" }, "Legend: b/w stones, M monuments (pentagon), + black-only and − white-only fields; ",
        h("span", { class: "swatch changed", "aria-hidden": "true" }), " orange ring: a field the last move changed; ",
        h("span", { class: "swatch highlighted", "aria-hidden": "true" }), " dotted frame: a field the scenario highlights.")));
}

function scoreTable(replay, frame, drawing) {
  const seats = replay.seats;
  if (drawing.score_table === "final") {
    const r = replay.rounds[0];
    return table(`Result: ${endWords(r.end || replay.termination)}`, [["Seat"], ["Score", "num"], ["Rank", "num"]],
      seats.map((name, i) => h("tr", { "data-seat": i }, h("td", {}, `${i}: ${name}`),
        h("td", { class: "num final-score" }, replay.scores[i]), h("td", { class: "num" }, replay.ranks[i]))));
  }
  const rows = replay.rounds.map((r, round) => h("tr", { class: round === frame.round ? "current" : "", "data-round": round },
    h("th", { scope: "row" }, `Round ${round + 1}`),
    r.penalties.map((p, i) => h("td", { class: "num", "data-seat": i }, p))));
  rows.push(h("tr", { class: "final" }, h("th", { scope: "row" }, "Final"),
    replay.scores.map((s, i) => h("td", { class: "num final-score", "data-seat": i }, `${s} (rank ${replay.ranks[i]})`))));
  return table(`Penalties per round and final scores (${endWords(replay.termination)})`,
    [["", ""], ...seats.map((name, i) => [`${i}: ${name}`, "num"])], rows);
}

