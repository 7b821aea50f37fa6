#!/usr/bin/env node
// A Thirteen Arena bot in JavaScript. It reads the wire contract straight from ../../proto,
// keeps one session with the arena, resumes it after a lost stream, and plays a simple
// heuristic from the legal actions' text and the pile totals: the highest card that keeps its
// pile at 13 or less, else the lowest card (in board13, a random legal action).
//
//   node bot.js --server 127.0.0.1:50051 --token atb_... [--games friday13,amigo13]
//               [--max-matches 4] [--matches N]
// The token and server may also come from ARENA_TOKEN and ARENA_SERVER.
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
  };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--server') options.server = value;
    else if (flag === '--token') options.token = value;
    else if (flag === '--games') options.games = value.split(',').filter(Boolean);
    else if (flag === '--max-matches') options.maxMatches = Number(value);
    else if (flag === '--matches') options.matches = Number(value);
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
  return options;
}

// "cat:5" -> {suit: "cat", value: 5, pile: "cat"}; "friday:4>mirror" -> pile "mirror".
function parseAction(text) {
  const [card, target] = text.split('>');
  const [suit, value] = card.split(':');
  return { suit, value: Number(value), pile: target || suit };
}

function choose(request) {
  const legalActions = request.legal_actions;
  if (request.observation.game !== 'cards') {
    // Another game (board13): a random legal action.
    return legalActions[Math.floor(Math.random() * legalActions.length)].id;
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
  return best.id;
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
  const client = new arena.BotService(options.server, grpc.credentials.createInsecure());
  let sessionId = '';
  let ended = 0;
  let backoff = 100;
  let stopping = false;

  function connect() {
    const metadata = new grpc.Metadata();
    metadata.add('authorization', `Bearer ${options.token}`);
    const call = client.Connect(metadata);
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
          sessionId = message.welcome.session_id;
          backoff = 100;
          break;
        case 'action_request': {
          const request = message.action_request;
          call.write({
            action: { match_id: request.match_id, request_id: request.request_id, action_id: choose(request) },
          });
          break;
        }
        case 'match_ended':
          ended += 1;
          console.error(`bot.js: match ${message.match_ended.match_id} ended, ranks ${message.match_ended.ranks}`);
          if (options.matches && ended >= options.matches) {
            stopping = true;
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
    call.on('error', (error) => {
      if (stopping) return;
      if (FATAL.has(error.code)) {
        console.error(`bot.js: the arena refused the bot: ${error.details}`);
        process.exit(2);
      }
      console.error(`bot.js: stream lost (${error.details}); reconnecting in ${backoff} ms`);
      setTimeout(connect, backoff);
      backoff = Math.min(5000, backoff * 2);
    });
    call.on('end', () => {
      if (!stopping) setTimeout(connect, backoff);
    });
  }

  connect();
}

main();
