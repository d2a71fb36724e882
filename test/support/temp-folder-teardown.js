/** See temp-folder.js. */
module.exports = require('./temp-folder').teardown;
