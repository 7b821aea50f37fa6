// An owner's own pages: sign in with the owner token, my bots (register, rotate a token, upload a
// hosted version, logs) and a challenge. The session is an HttpOnly cookie no script here can read;
// every change sends the session's CSRF token (from /api/session) in the X-CSRF-Token header.
import { h, api, fill, say, when, botLink, matchLink, table, plural } from "./util.js";

const view = document.getElementById("view");

async function send(path, { csrf, json, body, headers = {} }) {
  // A POST to this arena: a one-line `detail` and the `field` it is about come back on refusal.
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { Accept: "application/json", "X-CSRF-Token": csrf || "",
      ...(json !== undefined ? { "Content-Type": "application/json" } : {}), ...headers },
    body: json !== undefined ? JSON.stringify(json) : body,
  });
  let answer = {};
  try {
    answer = await response.json();
  } catch {
    answer = { detail: `${response.status} ${response.statusText}` };
  }
  if (!response.ok) {
    const error = new Error(answer.detail || `${response.status} ${response.statusText}`);
    error.field = answer.field || "";
    error.status = response.status;
    throw error;
  }
  return answer;
}

// -- forms: each field has its error line beside it; a refusal not about a field goes under the form ---

function field(label, input, name, hint) {
  return h("div", { class: "form-field" },
    h("label", { for: input.id }, label), input,
    hint ? h("p", { class: "muted hint", id: `${input.id}-hint` }, hint) : null,
    h("p", { class: "field-error", role: "alert", "data-error-for": name, id: `${input.id}-error`, hidden: true }));
}

function clearErrors(form) {
  for (const line of form.querySelectorAll("[data-error-for]")) {
    line.hidden = true;
    line.textContent = "";
  }
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
}

function showError(form, error) {
  const lines = [...form.querySelectorAll("[data-error-for]")];
  const line = lines.find((l) => l.dataset.errorFor === error.field) || lines.find((l) => l.dataset.errorFor === "");
  line.textContent = error.message;
  line.hidden = false;
  const input = line.closest(".form-field")?.querySelector("input, select");
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", line.id);
  }
  say(error.message);
}

function form(attrs, fields, buttonText, onSubmit) {
  const button = h("button", { type: "submit" }, buttonText);
  const status = h("p", { class: "muted form-status", "aria-live": "polite" });
  const node = h("form", { class: "owner-form", novalidate: true, ...attrs }, fields, h("div", { class: "owner-actions" }, button, status),
    h("p", { class: "field-error", role: "alert", "data-error-for": "", id: `${attrs.id}-error`, hidden: true }));
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(node);
    button.disabled = true;
    try {
      await onSubmit(node, status);
    } catch (error) {
      showError(node, error);
    } finally {
      button.disabled = false;
      status.textContent = "";
    }
  });
  return node;
}

let ids = 0;
const uid = (name) => `${name}-${++ids}`;

// -- signing in ------------------------------------------------------------------------------

function signInPage(session, then) {
  const token = h("input", { id: uid("token"), name: "token", type: "password", autocomplete: "off", spellcheck: "false",
    required: true, placeholder: "ato_..." });
  const signIn = form({ id: "sign-in", "aria-label": "Sign in" },
    field("Owner token", token, "token", "The token that arena owner create printed once (ato_...). It stays on the server: your browser keeps only a session."),
    "Sign in", async () => {
      await send("/api/session", { json: { token: token.value } });
      token.value = "";
      say("Signed in");
      await then();
    });
  fill(view, h("h1", {}, "Sign in"),
    session.available ? signIn : h("p", { class: "error", role: "alert" }, session.why),
    h("p", { class: "muted" }, "Signed in, you see your bots and their logs, register and upload bots, rotate their tokens and start challenges."));
}

async function signedIn(render) {
  // The page for a signed-in owner, or the sign-in form that leads back to it.
  const session = await api("/api/session");
  if (!session.owner) return signInPage(session, () => signedIn(render));
  return render(session);
}

function signOutButton(session) {
  return h("button", { type: "button", class: "sign-out", onclick: async () => {
    await send("/api/session/end", { csrf: session.csrf });
    say("Signed out");
    location.hash = "#/me";
    await mePage();
  } }, "Sign out");
}

// -- my bots -------------------------------------------------------------------------------------

export function mePage() {
  return signedIn(async (session) => {
    const [mine, games] = await Promise.all([api("/api/me/bots"), api("/api/games")]);
    const shown = h("div", { id: "new-token" });
    const reload = () => mePage();
    fill(view,
      h("div", { class: "owner-head" }, h("h1", {}, "My bots"),
        h("p", {}, "Signed in as ", h("strong", {}, session.owner), " ", signOutButton(session))),
      h("p", {}, h("a", { href: "#/challenge" }, "Start a challenge"), " · ", h("a", { href: "#/me" }, "Refresh")),
      shown,
      mine.bots.length ? mine.bots.map((bot) => botCard(bot, session, games, mine.max_package_bytes, shown, reload))
        : h("p", { class: "muted" }, "No bots yet: register one below."),
      registerForm(session, games, shown));
  });
}

function tokenBox(shown, result) {
  const copy = (text) => async (event) => {
    const button = event.currentTarget;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      // Without a secure context (http on another host) the clipboard API is off: select the text to copy.
      const range = document.createRange();
      range.selectNodeContents(button.previousElementSibling);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = "Selected: copy it";
    }
  };
  fill(shown, h("section", { class: "token-box", "aria-labelledby": "token-title" },
    h("h2", { id: "token-title" }, `New token for ${result.bot}`),
    h("p", {}, h("strong", {}, "Shown this once: "), "copy it now. Only its hash is kept."),
    h("div", { class: "copyable" }, h("code", { class: "token" }, result.token),
      h("button", { type: "button", onclick: copy(result.token) }, "Copy token")),
    h("p", {}, "Connect the sample bot with it (from the arena's source folder):"),
    h("div", { class: "copyable" }, h("code", { class: "command" }, result.command),
      h("button", { type: "button", onclick: copy(result.command) }, "Copy command"))));
  shown.scrollIntoView({ block: "nearest" });
}

function registerForm(session, games, shown) {
  const name = h("input", { id: uid("bot-name"), name: "name", required: true, maxlength: 40, autocomplete: "off" });
  const language = h("input", { id: uid("language"), name: "language", placeholder: "python", autocomplete: "off" });
  const boxes = games.map((g) => h("label", { class: "check" },
    h("input", { type: "checkbox", name: "games", value: g.name, checked: true }), ` ${g.name}`));
  const gamesField = h("fieldset", { class: "form-field" }, h("legend", {}, "Games it plays"), boxes,
    h("p", { class: "field-error", role: "alert", "data-error-for": "games", id: uid("games-error"), hidden: true }));
  const invite = h("input", { type: "checkbox", name: "accepts_invitations", id: uid("invite") });
  return h("section", { "aria-labelledby": "register-title" }, h("h2", { id: "register-title" }, "Register a bot"),
    form({ id: "register" }, [
      field("Name", name, "name", "1-40 letters, digits, '-', '_' or '.'"),
      gamesField,
      field("Language", language, "language"),
      h("div", { class: "form-field" }, h("label", { class: "check", for: invite.id }, invite, " Other owners may challenge it")),
    ], "Register", async (node) => {
      const result = await send("/api/me/bots", { csrf: session.csrf, json: {
        name: name.value, language: language.value, accepts_invitations: invite.checked,
        games: [...node.querySelectorAll("input[name=games]:checked")].map((box) => box.value) } });
      say(`Registered ${result.bot}`);
      await mePage();
      tokenBox(document.getElementById("new-token"), result);
    }));
}

function botCard(bot, session, games, maxBytes, shown, reload) {
  const rotate = h("button", { type: "button", onclick: async (event) => {
    if (!confirm(`Replace ${bot.name}'s token? The old one stops working at once.`)) return;
    const button = event.currentTarget;
    const line = button.nextElementSibling;
    line.hidden = true;
    try {
      tokenBox(shown, await send(`/api/me/bots/${encodeURIComponent(bot.name)}/token`, { csrf: session.csrf }));
    } catch (error) {
      line.textContent = error.message;
      line.hidden = false;
    }
  } }, "Rotate token");
  const facts = h("dl", { class: "facts" },
    h("dt", {}, "Kind"), h("dd", {}, bot.kind), h("dt", {}, "Games"), h("dd", {}, bot.games.join(", ") || "–"),
    h("dt", {}, "Connected"), h("dd", {}, bot.connected ? "yes" : "no"),
    h("dt", {}, "Challenges"), h("dd", {}, bot.accepts_invitations ? "other owners may challenge it" : "yours only"));
  return h("article", { class: "bot-card", "data-bot": bot.name, "aria-labelledby": `bot-${bot.name}` },
    h("h2", { id: `bot-${bot.name}` }, botLink(bot.name)), facts,
    h("div", { class: "owner-actions" }, rotate, h("p", { class: "field-error", role: "alert", hidden: true })),
    versionsOf(bot), runsOf(bot), uploadForm(bot, session, games, maxBytes, reload));
}

function versionsOf(bot) {
  if (!bot.versions.length) return null;
  const rows = bot.versions.map((v) => h("tr", { "data-version": v.version, "data-status": v.status },
    h("td", { class: "num" }, v.version), h("td", {}, v.status), h("td", { class: "wrap" }, v.reason || "–"),
    h("td", { class: "wrap" }, h("code", {}, v.run)), h("td", {}, when(v.created_ms)),
    h("td", {}, v.validation_match_id ? matchLink(v.validation_match_id) : "–")));
  return table(`${bot.name}: hosted versions, newest first`,
    [["Version", "num"], ["Status"], ["Why it failed"], ["Run"], ["Uploaded"], ["Validation match"]], rows, { stack: true });
}

function runsOf(bot) {
  if (!bot.runs.length) return null;
  return h("section", { class: "runs" }, h("h3", {}, "Latest runs and the end of their stderr"),
    bot.runs.map((run) => h("details", { class: "run" },
      h("summary", {}, `version ${run.version}, `, when(run.started_ms), `: ${run.ending || "running"}, ${plural(run.match_ids.length, "match", "matches")}`),
      run.match_ids.length ? h("p", { class: "match-links" }, run.match_ids.map((id) => [matchLink(id), " "])) : null,
      h("pre", { class: "stderr" }, (run.stderr_cut ? "…" : "") + (run.stderr_tail || "(no stderr)")))));
}

function uploadForm(bot, session, games, maxBytes, reload) {
  const file = h("input", { id: uid("package"), name: "package", type: "file", accept: ".tar.gz,.tgz,application/gzip", required: true });
  const run = h("input", { id: uid("run"), name: "run", required: true, placeholder: "python bot.py", autocomplete: "off",
    value: bot.versions[0]?.run || "" });
  const game = h("select", { id: uid("game"), name: "game" },
    (bot.games.length ? bot.games : games.map((g) => g.name)).map((g) => h("option", { value: g }, g)));
  const result = h("div", { class: "upload-result", "aria-live": "polite" });
  return h("section", { class: "upload" }, h("h3", {}, "Upload a hosted version"),
    form({ id: uid("upload"), "aria-label": `Upload a version of ${bot.name}` }, [
      field("Package (.tar.gz of the bot's folder)", file, "package", `At most ${(maxBytes / 1e6).toFixed(0)} MB; pack it with: tar czf bot.tar.gz -C FOLDER .`),
      field("Run command", run, "run"),
      field("Validation game", game, "game"),
    ], "Upload and validate", async (node, status) => {
      const chosen = file.files[0];
      if (!chosen) throw Object.assign(new Error("choose the bot's package, a .tar.gz of its folder"), { field: "package" });
      if (chosen.size > maxBytes) {
        throw Object.assign(new Error(`the package is ${chosen.size.toLocaleString("en-US")} bytes, over the limit of ${(maxBytes / 1e6).toFixed(1)} MB: leave out what the bot does not need`), { field: "package" });
      }
      status.textContent = "Uploading; then its validation match is played (this may take a minute)…";
      const query = new URLSearchParams({ run: run.value, game: game.value });
      const done = await send(`/api/me/bots/${encodeURIComponent(bot.name)}/versions?${query}`,
        { csrf: session.csrf, body: chosen, headers: { "Content-Type": "application/gzip" } });
      const v = done.version;
      say(`Version ${v.version}: ${v.status}`);
      await reload();
      const again = document.querySelector(`.bot-card[data-bot="${CSS.escape(bot.name)}"] .upload-result`);
      fill(again || result, h("p", { class: v.status === "ok" ? "ok" : "error", role: "status" },
        `Version ${v.version}: ${v.status}${v.reason ? ` (${v.reason})` : ""}`,
        v.validation_match_id ? [" · validation match ", matchLink(v.validation_match_id)] : null),
        done.stderr_tail ? h("pre", { class: "stderr" }, done.stderr_tail) : null);
    }), result);
}

// -- a challenge ------------------------------------------------------------------------------

export function challengePage() {
  return signedIn(async (session) => {
    const [mine, all, games] = await Promise.all([api("/api/me/bots"), api("/api/bots"), api("/api/games")]);
    if (!mine.bots.length) {
      fill(view, h("h1", {}, "Challenge"), h("p", {}, "Register a bot first on ", h("a", { href: "#/me" }, "My bots"), "."));
      return;
    }
    const own = mine.bots.map((b) => b.name);
    const invited = all.bots.filter((b) => b.accepts_invitations && b.owner !== session.owner).map((b) => b.name);
    const builtin = all.builtin.map((b) => b.name);
    const bot = h("select", { id: uid("challenger"), name: "bot" }, own.map((name) => h("option", { value: name }, name)));
    const seat = (i) => h("select", { id: uid("opponent"), name: "opponents", "data-seat": i + 1 },
      i ? h("option", { value: "" }, "nobody") : null,
      h("optgroup", { label: "Built-in" }, builtin.map((name) => h("option", { value: name }, name))),
      invited.length ? h("optgroup", { label: "Accepting challenges" }, invited.map((name) => h("option", { value: name }, name))) : null,
      h("optgroup", { label: "Yours" }, own.map((name) => h("option", { value: name }, name))));
    const seats = [0, 1, 2, 3, 4].map(seat);
    const game = h("select", { id: uid("challenge-game"), name: "game" }, h("option", { value: "" }, "any game every seat plays"),
      games.map((g) => h("option", { value: g.name }, g.name)));
    const result = h("div", { id: "challenge-result", "aria-live": "polite" });
    fill(view, h("h1", {}, "Challenge"),
      h("p", {}, "An unrated match of your bot against the opponents you choose; your bot takes the first seat. ",
        h("span", { class: "muted" }, `Signed in as ${session.owner}.`)),
      form({ id: "challenge" }, [
        field("Your bot", bot, "bot"),
        h("fieldset", { class: "form-field" }, h("legend", {}, "Opponents, in seat order"),
          seats.map((select, i) => field(`Seat ${i + 2}`, select, i ? `seat-${i}` : "opponents"))),
        field("Game", game, "game"),
      ], "Start the match", async () => {
        const done = await send("/api/me/challenges", { csrf: session.csrf, json: {
          bot: bot.value, game: game.value, opponents: seats.map((s) => s.value).filter(Boolean) } });
        say(`Match ${done.match_id} created`);
        fill(result, h("p", { class: "ok", role: "status" }, `${done.game} match created: `, matchLink(done.match_id),
          ` (${done.seats.join(", ")})`));
      }), result);
  });
}
