/** Jest's globalTeardown: stops the shared DynamoDB Local (global-setup.js), then temp-folder.js. */
const temp = require('./temp-folder');

module.exports = async () => {
  await globalThis.plantStoreDynamoDbLocal?.stop();
  temp.teardown();
};
