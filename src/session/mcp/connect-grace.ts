// The short wait a woken session's first connections make when last time's tools are
// known: a message sent at once goes first, since the connections' discovery (parsing
// hundreds of tools) is CPU on the object's one thread, which its model request would
// wait for. A turn on its way ends the wait at once.

/** How long the connections wait for a first message (a person takes longer to type one). */
const CONNECT_GRACE_MS = 50;

export class ConnectGrace {
  /** Ends the running wait (set while one runs). */
  private release?: () => void;
  /** A turn is on its way: a wait that starts now ends at once. */
  private releaseSoon = false;

  wait(): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.release = undefined;
        resolve();
      };
      const timer = setTimeout(end, this.releaseSoon ? 0 : CONNECT_GRACE_MS);
      this.release = end;
    });
  }

  /** A turn starts: the connections open in the task after this one, which sends its first model request. */
  endSoon(): void {
    this.releaseSoon = true;
    const release = this.release;
    if (release) setTimeout(release, 0);
  }
}
