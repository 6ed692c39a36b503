'use strict';
// Loads the published protocol (protos/pitch/v1/*.proto) at start-up with @grpc/proto-loader:
// no generated code to keep in step with the .proto files, which stay the single source of truth.

const path = require('node:path');
const fs = require('node:fs');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

/**
 * Where the .proto files are: $PITCH_PROTOS, else a protos/ folder in the kit (a copy packed
 * with it, so the package the arena hosts is whole), else the repository's protos/.
 */
function protosDir() {
  const packed = path.resolve(__dirname, '..', 'protos');
  const found = fs.existsSync(path.join(packed, 'pitch', 'v1', 'bot.proto'));
  const dir = process.env.PITCH_PROTOS || (found ? packed : path.resolve(__dirname, '..', '..', '..', 'protos'));
  if (!fs.existsSync(path.join(dir, 'pitch', 'v1', 'bot.proto'))) {
    throw new Error(`no pitch/v1/bot.proto under ${dir}: set PITCH_PROTOS to the protos/ directory`);
  }
  return dir;
}

/** The loaded `pitch.v1` package: `BotService` (the bot's stream) and `ArenaService`. */
function loadPitch() {
  const dir = protosDir();
  const definition = protoLoader.loadSync(['pitch/v1/bot.proto', 'pitch/v1/arena.proto'], {
    includeDirs: [dir],
    keepCase: true, // field names exactly as in the .proto files (match_id, legal_actions, ...)
    longs: String, // uint64 seeds as decimal strings: no precision lost
    enums: String, // enum values by name, e.g. 'DECISION_KIND_PLAY'
    defaults: true, // unset fields read as their proto3 defaults
    oneofs: true, // each oneof also names its set member: message.message === 'decision_request'
  });
  return grpc.loadPackageDefinition(definition).pitch.v1;
}

module.exports = { loadPitch, protosDir };
