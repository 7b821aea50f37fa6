#!/usr/bin/env node
// A Thirteen Arena bot in JavaScript. It reads the wire contract straight from ../../proto,
// keeps one session with the arena, resumes it after a lost stream, and plays a simple
// heuristic from the legal actions' text and the pile totals: the highest card that keeps its
// pile at 13 or less, else the lowest card (in board13, a random legal action). Each answer
// carries a line of debug text saying why (the replay shows it; no other seat ever sees it).
//
//   node bot.js --server 127.0.0.1:50051 --token atb_... [--games friday13,amigo13]
//               [--max-matches 4] [--matches N] [--max-attempts 20] [--give-up-after 120]
// The token and server may also come from ARENA_TOKEN and ARENA_SERVER. It says on stderr when
// it connects and each time it tries again, and gives up after --max-attempts attempts or
// --give-up-after seconds without a Welcome (0: never), with exit code 1.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// The contract: a proto/ folder next to this file (as a hosted bot's package carries it), else
// the repository's.
const PROTO_ROOT = [path.join(__dirname, 'proto'), path.resolve(__dirname, '..', '..', 'proto')].find((dir) =>
  fs.existsSync(path.join(dir, 'arena', 'v1', 'bot_service.proto')),
);
const LIMIT = 13;
const FATAL = new Set([
  grpc.status.UNAUTHENTICATED,
  grpc.status.PERMISSION_DENIED,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.FAILED_PRECONDITION,
]);

function parseArgs(argv) {
  const options = {
    server: process.env.ARENA_SERVER || '127.0.0.1:50051',
    token: process.env.ARENA_TOKEN || '',
    games: [],
    maxMatches: 1,
    matches: 0,
    maxAttempts: 20,
    giveUpAfter: 120,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--server') options.server = value;
    else if (flag === '--token') options.token = value;
    else if (flag === '--games') options.games = value.split(',').filter(Boolean);
    else if (flag === '--max-matches') options.maxMatches = Number(value);
    else if (flag === '--matches') options.matches = Number(value);
    else if (flag === '--max-attempts') options.maxAttempts = Number(value);
    else if (flag === '--give-up-after') options.giveUpAfter = Number(value);
    else {
      console.error(`bot.js: unknown option ${flag}`);
      process.exit(2);
    }
    i += 1;
  }
  if (!options.token) {
    console.error('bot.js: give the bot token with --token or ARENA_TOKEN');
    process.exit(2);
  }
  for (const [flag, value] of [['--max-attempts', options.maxAttempts], ['--give-up-after', options.giveUpAfter]]) {
    if (!(value >= 0 && Number.isFinite(value))) {
      console.error(`bot.js: ${flag} takes a number of 0 (never give up) or more`);
      process.exit(2);
    }
  }
  return options;
}

// "cat:5" -> {suit: "cat", value: 5, pile: "cat"}; "friday:4>mirror" -> pile "mirror".
function parseAction(text) {
  const [card, target] = text.split('>');
  const [suit, value] = card.split(':');
  return { suit, value: Number(value), pile: target || suit };
}

// The answer: {id, debug}, the action and a line saying why (kept with the replay at this move).
function choose(request) {
  const legalActions = request.legal_actions;
  if (request.observation.game !== 'cards') {
    // Another game (board13): a random legal action.
    const pick = legalActions[Math.floor(Math.random() * legalActions.length)];
    return { id: pick.id, debug: `${pick.text}: random among ${legalActions.length} legal actions` };
  }
  const totals = {};
  for (const pile of request.observation.cards.piles) totals[pile.suit] = pile.total;
  let best = null;
  let bestKey = null;
  for (const legal of legalActions) {
    const action = parseAction(legal.text);
    const safe = (totals[action.pile] || 0) + action.value <= LIMIT;
    // Safe cards first, highest value first; otherwise the lowest card, so the pile restarts low.
    const key = safe ? [0, -action.value, legal.id] : [1, action.value, legal.id];
    if (bestKey === null || key[0] < bestKey[0] || (key[0] === bestKey[0] && (key[1] < bestKey[1]
        || (key[1] === bestKey[1] && key[2] < bestKey[2])))) {
      best = legal;
      bestKey = key;
    }
  }
  const action = parseAction(best.text);
  const after = (totals[action.pile] || 0) + action.value;
  const why = bestKey[0] === 0 ? 'highest safe card' : 'nothing safe, lowest card';
  return { id: best.id, debug: `${best.text}: ${why}, ${action.pile} to ${after}` };
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const definition = protoLoader.loadSync('arena/v1/bot_service.proto', {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const arena = grpc.loadPackageDefinition(definition).arena.v1;
  let sessionId = '';
  let ended = 0;
  let backoff = 100;
  let stopping = false;
  let attempts = 0; // in a row without a Welcome
  let since = Date.now(); // the start, or when the last stream with a Welcome was lost

  function connect() {
    // A fresh channel per attempt: a channel that failed to connect waits out its own backoff
    // (up to two minutes) before it tries again.
    const client = new arena.BotService(options.server, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.add('authorization', `Bearer ${options.token}`);
    const call = client.Connect(metadata);
    let welcomed = false;
    let noWelcome = '';
    // The Hello and the Welcome within 10 s: a host that swallows packets costs seconds, not minutes.
    const timer = setTimeout(() => {
      noWelcome = 'no Welcome within 10 s';
      call.cancel();
    }, 10000);
    call.write({
      hello: {
        games: options.games,
        max_matches: options.maxMatches,
        join_ladder: false,
        resume_session_id: sessionId,
        client: 'arena-sample-node/0.1',
      },
    });
    call.on('data', (message) => {
      switch (message.message) {
        case 'welcome':
          clearTimeout(timer);
          welcomed = true;
          sessionId = message.welcome.session_id;
          console.error(
            `bot.js: connected to ${options.server} as ${message.welcome.bot_name}, session ${sessionId}` +
              (message.welcome.resumed ? ', resumed' : ''),
          );
          break;
        case 'action_request': {
          const request = message.action_request;
          const choice = choose(request);
          call.write({
            action: {
              match_id: request.match_id,
              request_id: request.request_id,
              action_id: choice.id,
              debug: choice.debug,
            },
          });
          break;
        }
        case 'match_ended':
          ended += 1;
          console.error(`bot.js: match ${message.match_ended.match_id} ended, ranks ${message.match_ended.ranks}`);
          if (options.matches && ended >= options.matches) {
            stopping = true;
            clearTimeout(timer);
            call.end();
            client.close();
          }
          break;
        case 'error':
          console.error(`bot.js: ${message.error.code}: ${message.error.message}`);
          break;
        default:
          break;
      }
    });
    call.on('error', () => {}); // the 'status' below says what happened, once
    call.on('status', (status) => {
      clearTimeout(timer);
      client.close();
      if (stopping) return;
      if (FATAL.has(status.code)) {
        console.error(`bot.js: the arena refused the bot: ${status.details}`);
        process.exit(2);
      }
      // grpc-js's details end with a resolution note that says nothing here.
      const details = (status.details || 'the server ended the stream').replace(/\.? *Resolution note:.*$/, '');
      const why = noWelcome || `${details} (${grpc.status[status.code]})`;
      if (welcomed) {
        attempts = 0;
        since = Date.now();
        backoff = 100;
      }
      attempts += 1;
      const what = `${welcomed ? 'lost the stream to' : 'cannot connect to'} ${options.server}: ${why}`;
      const waited = (Date.now() - since) / 1000;
      const tooMany = options.maxAttempts && attempts >= options.maxAttempts;
      if (tooMany || (options.giveUpAfter && waited >= options.giveUpAfter)) {
        console.error(
          `bot.js: giving up after ${attempts} attempts in ${Math.round(waited)} s without a Welcome (${what}); ` +
            "check the server's address and that the arena is running",
        );
        process.exit(1);
      }
      const limit = options.maxAttempts ? ` of ${options.maxAttempts}` : '';
      console.error(`bot.js: ${what}; retrying in ${backoff} ms (attempt ${attempts + 1}${limit})`);
      setTimeout(connect, backoff);
      backoff = Math.min(5000, backoff * 2);
    });
  }

  connect();
}

main();
