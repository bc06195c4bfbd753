// What a machine's socket may send before the relay closes it (1008): a flood of frames,
// frames that do not parse, answers for requests it never had. Counted in memory per
// socket object (a wake makes new objects, and the counts start again).

/** Frames that fail to parse before the socket is closed: a confused or hostile bridge. */
const MAX_BAD_FRAMES = 20;
/** Frames a socket may send per second on average (answers stream in 512 KiB chunks). */
const FRAMES_PER_SECOND = 2000;
/**
 * Frames for requests this machine does not have open, per minute: a few follow each answer the
 * Worker stopped reading (they were on their way before the abort). The per-second rate alone
 * cannot catch a flood of them when the object handles frames slower than that rate (a busy
 * host), so they have a count of their own.
 */
const STRAY_FRAMES_PER_MINUTE = 1000;

/** Frames counted in a fixed window: the count starts again when the window has passed. */
interface WindowCount {
  start: number;
  count: number;
}

interface SocketLoad {
  bad: number;
  frames: WindowCount;
  stray: WindowCount;
}

/** Counts one more in `window` (of `ms`), and says how many it now holds. */
function countIn(window: WindowCount, ms: number): number {
  const now = Date.now();
  if (now - window.start >= ms) {
    window.start = now;
    window.count = 0;
  }
  return ++window.count;
}

export class SocketLimits {
  private readonly load = new WeakMap<WebSocket, SocketLoad>();

  /** Counts a frame; a flood is closed, not queued (the machine reconnects with backoff). False when closed. */
  withinRate(socket: WebSocket): boolean {
    if (countIn(this.loadOf(socket).frames, 1000) <= FRAMES_PER_SECOND) return true;
    socket.close(1008, "too many frames");
    return false;
  }

  /** Counts a frame that did not parse; closes the socket at the limit. */
  badFrame(socket: WebSocket): void {
    if (++this.loadOf(socket).bad >= MAX_BAD_FRAMES) socket.close(1008, "too many invalid frames");
  }

  /** Counts a frame for a request this machine does not have open; closes the socket past the limit. */
  stray(socket: WebSocket): void {
    if (countIn(this.loadOf(socket).stray, 60_000) === STRAY_FRAMES_PER_MINUTE + 1) socket.close(1008, "too many frames for unknown requests");
  }

  private loadOf(socket: WebSocket): SocketLoad {
    let load = this.load.get(socket);
    if (!load) this.load.set(socket, (load = { bad: 0, frames: { start: Date.now(), count: 0 }, stray: { start: Date.now(), count: 0 } }));
    return load;
  }
}
