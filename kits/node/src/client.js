'use strict';
// The bot's connection to a referee, as the file comment of protos/pitch/v1/bot.proto describes
// the conversation: Connect with the token in the `authorization` metadata, hello, then answer
// every decision request of every seat; reconnect with backoff when the stream drops (the
// referee resumes the seats within its grace window); batches both ways.

const grpc = require('@grpc/grpc-js');
const { loadPitch } = require('./protocol');
const { meetsRule } = require('./cards');

const PROTOCOL_VERSION = 'pitch.v1';
const MAX_BATCH = 4096; // the referee's limit on messages in one batch
const FIRST_BACKOFF_MS = 250;

/** Raised for what reconnecting cannot fix: a rejected token, a refused hello. */
class ConnectionRefused extends Error {}

class BotConnection {
  /**
   * @param {object} options
   * @param {string} options.address   the referee, HOST:PORT
   * @param {string} options.token     the bot's token from registration
   * @param {object} options.strategy  { name, version, decide(request, seat), onMatchStarted?, onMatchEnded? }
   * @param {number} [options.capacity=4]  seats to play at once, across matches
   * @param {string[]} [options.rulesets=[]]  presets the bot plays (empty: all)
   * @param {number} [options.maxBackoffMs=10000]  longest wait between reconnection attempts
   * @param {(level: string, text: string) => void} [options.log]
   * @param {{ca: ?Buffer, serverName: string}} [options.tls]  speak TLS, trusting `ca` (a PEM
   *   certificate; null: the system's roots), expecting `serverName` on the referee's certificate
   *   when it differs from the host dialled; absent: plaintext
   */
  constructor({ address, token, strategy, capacity = 4, rulesets = [], maxBackoffMs = 10000, log, tls = null }) {
    this.address = address;
    this.token = token;
    this.strategy = strategy;
    this.capacity = capacity;
    this.rulesets = rulesets;
    this.maxBackoffMs = maxBackoffMs;
    this.log = log || ((level, text) => process.stderr.write(`${new Date().toISOString()} ${level} ${text}\n`));
    this.pitch = loadPitch();
    const credentials = tls ? grpc.credentials.createSsl(tls.ca) : grpc.credentials.createInsecure();
    const channelOptions = tls && tls.serverName ? { 'grpc.ssl_target_name_override': tls.serverName } : {};
    this.stub = new this.pitch.BotService(address, credentials, channelOptions);
    this.seats = new Map(); // `${match_id}/${seat}` -> the seat's record (see strategy.js)
    this.stats = { decisions: 0, strikes: 0, matches: 0 };
    this.stopping = false;
    this.call = null;
    this.pending = []; // messages queued for the next write (sent as one batch when several)
    this.wakeUp = null;
  }

  /** Play until stop(); resolves then, rejects with ConnectionRefused when retrying cannot help. */
  async run() {
    let backoff = FIRST_BACKOFF_MS;
    while (!this.stopping) {
      const welcomed = await this.session();
      if (this.stopping) break;
      if (welcomed) backoff = FIRST_BACKOFF_MS;
      const delay = Math.round(backoff * (0.5 + Math.random()));
      this.log('INFO', `reconnecting in ${delay} ms`);
      await new Promise((resolve) => {
        this.wakeUp = resolve;
        setTimeout(resolve, delay);
      });
      backoff = Math.min(backoff * 2, this.maxBackoffMs);
    }
    this.stub.close();
    this.log('INFO', `stopped after ${this.stats.matches} matches, ${this.stats.decisions} decisions, `
      + `${this.stats.strikes} strikes`);
  }

  /** Leave cleanly: send what is queued, half-close the stream, and let run() resolve. */
  stop() {
    if (this.stopping) return;
    this.stopping = true;
    if (this.wakeUp) this.wakeUp();
    const call = this.call;
    if (call) {
      this.flush();
      call.end();
      setTimeout(() => call.cancel(), 2000).unref(); // a referee that does not end the stream
    }
  }

  /** One stream, until it ends; resolves whether the referee welcomed it. */
  session() {
    return new Promise((resolve, reject) => {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${this.token}`);
      const call = this.stub.Connect(metadata);
      this.call = call;
      let welcomed = false;
      let refused = null;
      call.on('data', (message) => {
        try {
          const inner = message.message === 'batch' ? message.batch.messages : [message];
          for (const one of inner) {
            if (this.handle(one, call) === 'welcome') welcomed = true;
          }
        } catch (error) {
          refused = error;
          call.cancel();
        }
      });
      call.on('error', () => {}); // the status below says everything
      call.on('status', (status) => {
        this.call = null;
        this.pending = [];
        if (refused) return this.fatal(reject, refused);
        if (status.code === grpc.status.UNAUTHENTICATED) {
          return this.fatal(reject, new ConnectionRefused(`the referee rejected the token: ${status.details}`));
        }
        if (!(this.stopping && status.code === grpc.status.CANCELLED) && status.code !== grpc.status.OK) {
          this.log('WARN', `stream to ${this.address} lost (${grpc.status[status.code]}: ${status.details})`);
        }
        resolve(welcomed);
      });
      call.write({
        hello: {
          bot_name: this.strategy.name,
          bot_version: this.strategy.version,
          sdk: `pitch-arena node kit, @grpc/grpc-js ${require('@grpc/grpc-js/package.json').version}`,
          protocol_versions: [PROTOCOL_VERSION],
          rulesets: this.rulesets,
          capacity: this.capacity,
          batching: true,
        },
      });
    });
  }

  fatal(reject, error) {
    this.stopping = true;
    this.stub.close();
    reject(error);
  }

  /** Act on one referee message; returns its kind. */
  handle(message, call) {
    const kind = message.message;
    switch (kind) {
      case 'welcome':
        this.log('INFO', `connected to ${this.address} as ${this.strategy.name} `
          + `(bot ${message.welcome.bot_id}, session ${message.welcome.session_id})`);
        break;
      case 'refusal':
        if (message.refusal.reason !== 'REFUSAL_REASON_SHUTTING_DOWN') {
          throw new ConnectionRefused(`the referee refused the bot: ${message.refusal.message}`);
        }
        this.log('WARN', 'the referee is shutting down; trying again later');
        break;
      case 'match_started':
        this.startSeat(message.match_started);
        break;
      case 'decision_request':
        this.decide(message.decision_request, call);
        break;
      case 'strike': {
        const strike = message.strike;
        this.stats.strikes += 1;
        this.log('WARN', `strike ${strike.strikes} in match ${strike.match_id} seat ${strike.seat}: `
          + `${strike.message} (the referee played ${strike.fallback ? strike.fallback.text : '?'})`);
        break;
      }
      case 'match_ended':
        this.endMatch(message.match_ended);
        break;
      case 'error':
        this.log('ERROR', `the referee refused a request: ${message.error.message}`);
        break;
      default: // 'events': what no request carried, sent as a match ends; this kit needs none
        break;
    }
    return kind;
  }

  startSeat(started) {
    const key = `${started.match_id}/${started.seat}`;
    if (this.seats.has(key)) return; // sent again after a reconnection: keep the seat's memory
    const seat = {
      match_id: started.match_id, seat: started.seat, ruleset: started.ruleset,
      seat_names: started.seat_names, games: started.games, time_control: started.time_control, memory: {},
    };
    this.seats.set(key, seat);
    this.log('INFO', `match ${started.match_id}: playing seat ${started.seat} of ${started.ruleset.name}`);
    if (this.strategy.onMatchStarted) this.strategy.onMatchStarted(seat);
  }

  /** Each seat gets its own match_ended: the first one ends all of the match's seats. */
  endMatch(ended) {
    const seats = [...this.seats].filter(([, seat]) => seat.match_id === ended.match_id);
    if (seats.length === 0) return;
    this.stats.matches += 1;
    for (const [key, seat] of seats) {
      this.seats.delete(key);
      if (this.strategy.onMatchEnded) this.strategy.onMatchEnded(ended.result, seat);
    }
    this.log('INFO', `match ${ended.match_id} ended (completed: ${ended.result.completed})`);
  }

  /** Ask the strategy, then answer; a strategy that throws is answered with no action. */
  decide(request, call) {
    const seat = this.seats.get(`${request.match_id}/${request.seat}`) || { memory: {} };
    Promise.resolve()
      .then(() => this.strategy.decide(request, seat))
      .then((answer) => this.decision(request, answer), (error) => {
        this.log('ERROR', `strategy failed on ${request.kind} in match ${request.match_id}: `
          + `${error && error.stack ? error.stack : error}`);
        return { match_id: request.match_id, decision_id: request.decision_id };
      })
      .then((decision) => {
        this.stats.decisions += 1;
        if (this.call === call) this.send({ decision }); // else the stream is gone: the referee re-asks
      });
  }

  decision(request, answer) {
    const decision = { match_id: request.match_id, decision_id: request.decision_id };
    const index = typeof answer === 'number' ? answer : request.legal_actions.indexOf(answer);
    if (index >= 0) {
      decision.legal_action_index = index;
      return decision;
    }
    if (request.card_set && answer && answer.cards && !meetsRule(request.card_set, answer.cards.cards)) {
      this.log('ERROR', `the strategy's cards do not meet the rule of decision ${request.decision_id}`);
    }
    decision.action = answer;
    return decision;
  }

  /** Queue a message; everything queued in the same turn of the event loop goes as one write. */
  send(message) {
    this.pending.push(message);
    if (this.pending.length === 1) setImmediate(() => this.flush());
  }

  flush() {
    const ready = this.pending;
    this.pending = [];
    if (!this.call || ready.length === 0) return;
    if (ready.length === 1) {
      this.call.write(ready[0]);
      return;
    }
    for (let start = 0; start < ready.length; start += MAX_BATCH) {
      this.call.write({ batch: { messages: ready.slice(start, start + MAX_BATCH) } });
    }
  }
}

module.exports = { BotConnection, ConnectionRefused, PROTOCOL_VERSION };
