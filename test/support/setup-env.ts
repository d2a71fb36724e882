// Tests run on this machine's Node 20; the functions run on Lambda's Node 22 or newer.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
