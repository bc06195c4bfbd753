// Binding the bridge's port, with a message that says what to do when it cannot be bound.
import type { Server } from "node:http";

/** The port could not be bound; the message says what to do. */
export class ListenError extends Error {}

export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") reject(new ListenError(`port ${port} is in use; pass --port or set BRIDGE_PORT`));
      else if (error.code === "EACCES") reject(new ListenError(`not allowed to listen on ${host}:${port}; pass --port or set BRIDGE_PORT`));
      else if (error.code === "EADDRNOTAVAIL") reject(new ListenError(`${host} is not an address of this machine; pass --host`));
      else reject(error);
    });
    server.listen(port, host, () => resolve());
  });
}
