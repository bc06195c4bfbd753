// Preloaded (NODE_OPTIONS=--import) into the processes bench/relay-hops.ts starts: the
// time of each read and write on their TCP sockets and pipes, and of each HTTP request
// their servers take, appended to $HOPS_OUT/<pid>.jsonl as [ms since epoch, kind, what, bytes].
// Process-wide patches of node:net and node:http: for benches only, never for the product.
import { appendFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";

const dir = process.env.HOPS_OUT;
if (dir) {
  const file = `${dir}/${process.pid}.jsonl`;
  let events = [];
  const now = () => performance.timeOrigin + performance.now();
  const label = (socket) =>
    socket.remotePort ? `tcp:${socket.localPort}>${socket.remotePort}` : socket._handle?.constructor?.name === "Pipe" ? `pipe:${socket._handle.fd}` : null;
  const proto = net.Socket.prototype;
  const push = proto.push;
  proto.push = function (chunk, encoding) {
    const what = chunk ? label(this) : null;
    if (what) events.push([now(), "in", what, chunk.length]);
    return push.call(this, chunk, encoding);
  };
  const writeGeneric = proto._writeGeneric;
  proto._writeGeneric = function (writev, data, encoding, done) {
    const what = label(this);
    if (what) events.push([now(), "out", what, data.length]);
    return writeGeneric.call(this, writev, data, encoding, done);
  };
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (name, ...args) {
    if (name === "request") events.push([now(), "req", "http", 0]);
    return emit.call(this, name, ...args);
  };
  const flush = () => {
    if (events.length === 0) return;
    appendFileSync(file, `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
    events = [];
  };
  setInterval(flush, 500).unref();
  process.on("exit", flush);
}
