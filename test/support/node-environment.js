/**
 * Jest's node environment, with the host's `Error` shared into the test realm. Node's socket
 * errors are made in the host realm; without this, `instanceof Error` fails for them inside
 * tests (jest#2549) and the AWS SDK wraps them, hiding their `code` — unlike on Lambda.
 */
const { TestEnvironment } = require('jest-environment-node');

class SharedErrorEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.Error = Error;
  }
}

module.exports = SharedErrorEnvironment;
