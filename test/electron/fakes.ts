/** Stand-ins for Electron's objects and for time, for the main process's tests under plain Node. */
import { EventEmitter } from 'node:events';
import type { Clock, ServerChild } from '../../electron/main/serverSupervisor';

/** Time that moves only when the test says so. */
export class ManualClock implements Clock {
  private time = 1_000_000;
  private next = 1;
  private readonly timers = new Map<number, { at: number; action: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(action: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.set(id, { at: this.time + ms, action });
    return id;
  }

  clearTimeout(timer: unknown): void {
    this.timers.delete(timer as number);
  }

  /** Move time forward, running every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].action();
    }
    this.time = end;
  }

  pending(): number {
    return this.timers.size;
  }
}

/** A utility process that does what the test tells it to. */
export class FakeChild extends EventEmitter implements ServerChild {
  readonly sent: unknown[] = [];
  killed = false;
  exited = false;

  constructor(
    readonly modulePath: string,
    readonly args: string[],
    /** What the child does when told to stop. */
    private readonly onStop: 'exit' | 'hang' = 'exit',
  ) {
    super();
  }

  postMessage(message: unknown): void {
    this.sent.push(message);
    if ((message as { type?: string }).type === 'stop' && this.onStop === 'exit') this.exit(0);
  }

  kill(): boolean {
    this.killed = true;
    this.exit(-1);
    return true;
  }

  ready(port = 4321, token = 'b'.repeat(40)): void {
    this.emit('message', { type: 'ready', port, token });
  }

  say(message: unknown): void {
    this.emit('message', message);
  }

  exit(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.emit('exit', code);
  }
}

/** Records every process forked. */
export function forkRecorder(onStop: 'exit' | 'hang' = 'exit') {
  const children: FakeChild[] = [];
  const fork = (modulePath: string, args: string[]) => {
    const child = new FakeChild(modulePath, args, onStop);
    children.push(child);
    return child;
  };
  return { fork, children, last: () => children[children.length - 1]! };
}

/** An object with Electron-style `event.preventDefault()`. */
export function navigation(url: string) {
  const event = {
    url,
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

/** A web contents: an event emitter that keeps its window-open handler. */
export class FakeWebContents extends EventEmitter {
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  readonly sentToPage: [string, unknown][] = [];
  destroyed = false;

  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }

  send(channel: string, payload: unknown): void {
    this.sentToPage.push([channel, payload]);
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }
}
