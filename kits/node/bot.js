#!/usr/bin/env node
'use strict';
// Runs the bot of src/strategy.js against a referee until Ctrl-C or SIGTERM:
//   node bot.js --referee HOST:PORT --token TOKEN
// (or PITCH_REFEREE and PITCH_BOT_TOKEN in the environment, like `pitch-bot run`); an arena
// that speaks TLS: --tls-ca ca.pem (or PITCH_TLS_CA), or --tls for a publicly issued certificate.
// Exit codes: 0 stopped by a signal; 2 bad arguments, or the referee refused the token or hello.

const fs = require('node:fs');
const { parseArgs } = require('node:util');
const { BotConnection, ConnectionRefused } = require('./src/client');
const strategy = require('./src/strategy');

const USAGE = 'usage: node bot.js --referee HOST:PORT --token TOKEN [--capacity N] [--ruleset PRESET]... [--quiet]\n'
  + '                  [--tls] [--tls-ca CA.pem] [--tls-server-name NAME]';

function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        referee: { type: 'string', default: process.env.PITCH_REFEREE },
        token: { type: 'string', default: process.env.PITCH_BOT_TOKEN },
        capacity: { type: 'string', default: '4' },
        ruleset: { type: 'string', multiple: true, default: [] },
        quiet: { type: 'boolean', default: false },
        tls: { type: 'boolean', default: false },
        'tls-ca': { type: 'string', default: process.env.PITCH_TLS_CA || '' },
        'tls-server-name': { type: 'string', default: process.env.PITCH_TLS_SERVER_NAME || '' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    return usage(error.message);
  }
  if (values.help) return usage(null, 0);
  const capacity = Number(values.capacity);
  if (!values.referee) return usage('give --referee HOST:PORT (or PITCH_REFEREE)');
  if (!values.token) return usage('give --token (or PITCH_BOT_TOKEN): `pitch-arena register NAME` prints one');
  if (!Number.isInteger(capacity) || capacity < 1 || capacity > 1024) return usage('--capacity is 1..1024');
  let ca = null;
  if (values['tls-ca']) {
    try {
      ca = fs.readFileSync(values['tls-ca']);
    } catch (error) {
      return usage(`--tls-ca: cannot read ${values['tls-ca']} (${error.code || error.message})`);
    }
  }
  const tls = values.tls || ca ? { ca, serverName: values['tls-server-name'] } : null;

  const log = values.quiet
    ? (level, text) => { if (level !== 'INFO') process.stderr.write(`${level} ${text}\n`); }
    : undefined;
  const connection = new BotConnection({
    address: values.referee, token: values.token, strategy, capacity, rulesets: values.ruleset, log, tls,
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => connection.stop());
  connection.run().then(() => process.exit(0), (error) => {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(error instanceof ConnectionRefused ? 2 : 1);
  });
}

function usage(problem, code = 2) {
  if (problem) process.stderr.write(`error: ${problem}\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(code);
}

main();
