/**
 * Jest's globalSetup: the run's temp folder (temp-folder.js), then, for a run of several suites
 * on DynamoDB Local (a whole run), the one JVM they share (dynamodb-local.ts), started without
 * waiting for it: the suites wait for it to answer. A run of one such suite starts its own.
 * (Plain JavaScript: Jest loads these before any transform is set up.)
 */
const { readdirSync, readFileSync } = require('node:fs');
const { createServer } = require('node:net');
const { join } = require('node:path');
const temp = require('./temp-folder');
const { skipReason, spawnDynamoDbLocal } = require('./dynamodb-local-jvm');

/** The suites that start DynamoDB Local (they name `startDynamoDbLocal` or `realEngines`). */
function dynamoDbLocalSuites(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => join(dir, file))
    .filter((file) => /\b(?:startDynamoDbLocal|realEngines)\b/.test(readFileSync(file, 'utf8')));
}

/** A free loopback port. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

module.exports = async (globalConfig) => {
  temp.setup();
  if (skipReason !== undefined) return;
  const patterns = globalConfig.testPathPatterns?.patterns ?? [];
  const chosen = dynamoDbLocalSuites(join(__dirname, '..')).filter(
    (file) => patterns.length === 0 || patterns.some((p) => new RegExp(p).test(file)),
  );
  if (chosen.length < 2) return;
  const port = await freePort();
  globalThis.plantStoreDynamoDbLocal = spawnDynamoDbLocal(port);
  process.env.PLANT_STORE_TEST_DYNAMODB_LOCAL = `http://127.0.0.1:${port}`;
};
