// Preloaded into the peer gateway (node -r): Portkey listens on every interface by default; the benchmark keeps
// every server it starts on 127.0.0.1. Rewrites listen(port[, host][, cb]) and listen({port}) to loopback.
const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function loopbackListen(...args) {
  const [first] = args;
  if (typeof first === 'object' && first !== null && !Array.isArray(first) && 'port' in first) {
    return listen.call(this, { ...first, host: '127.0.0.1' }, ...args.slice(1).filter((a) => typeof a === 'function'));
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return listen.call(
      this,
      { port: Number(first), host: '127.0.0.1' },
      ...args.filter((a) => typeof a === 'function'),
    );
  }
  return listen.apply(this, args);
};
