import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { type HostReplyMessage, MAX_BRIDGE_CHARS, SHARED_SLOTS } from './child-messages.js';

/** The part of Emscripten's FS this bridge uses. */
export interface DeviceFs {
  makedev(major: number, minor: number): number;
  registerDevice(dev: number, ops: DeviceOps): void;
  mkdev(path: string, dev: number): unknown;
}

interface DeviceStream {
  /** The reply to the last request written on this stream, not yet read. */
  pending?: Uint8Array | undefined;
}

interface DeviceOps {
  open(stream: DeviceStream): void;
  close(stream: DeviceStream): void;
  read(stream: DeviceStream, buffer: Uint8Array, offset: number, length: number): number;
  write(stream: DeviceStream, buffer: Uint8Array, offset: number, length: number): number;
}

/** Where the scaffold's host calls go (python/scaffold.py writes one JSON request per call). */
export const DEVICE_PATH = '/dev/rlm';
/** An unused device number in Emscripten's table (its own devices use majors 1, 5 and 6). */
const DEVICE_MAJOR = 64;

export interface DeviceBridgeOptions {
  /** Sends a host call to the supervisor. */
  post: (callId: number, request: string) => void;
  /** The port the supervisor answers on while this thread waits. */
  replies: MessagePort;
  /** Shared with the supervisor (see SHARED_SLOTS). */
  shared: Int32Array;
  /** Answers a request on this thread when it can (a scan, see host-regex-scan.ts). */
  answerHere?: (request: string) => string | undefined;
}

/**
 * Installs `/dev/rlm`: writing a request posts it to the supervisor and blocks this thread in
 * `Atomics.wait` until the supervisor has the host's reply on the reply port; reading returns the
 * reply's bytes, then end of file. This is how Python's `llm_query` blocks while the host performs
 * an async call, with no JavaScript object ever handed to Python.
 */
export function installDeviceBridge(fs: DeviceFs, options: DeviceBridgeOptions): void {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let nextCallId = 1;
  const call = (request: string): string => {
    const callId = nextCallId++;
    let seen = Atomics.load(options.shared, SHARED_SLOTS.reply);
    options.post(callId, request);
    for (;;) {
      const message = receiveMessageOnPort(options.replies);
      if (message !== undefined) {
        const reply = message.message as HostReplyMessage;
        // A stale reply (for a call an interrupted block abandoned) is skipped.
        if (reply.callId === callId) return reply.reply;
        continue;
      }
      Atomics.wait(options.shared, SHARED_SLOTS.reply, seen);
      seen = Atomics.load(options.shared, SHARED_SLOTS.reply);
    }
  };
  const answer = (request: string): string => options.answerHere?.(request) ?? call(request);
  const dev = fs.makedev(DEVICE_MAJOR, 0);
  fs.registerDevice(dev, {
    open(stream) {
      stream.pending = undefined;
    },
    close(stream) {
      stream.pending = undefined;
    },
    // biome-ignore lint/complexity/useMaxParams: Emscripten's device interface fixes this signature.
    read(stream, buffer, offset, length) {
      const pending = stream.pending;
      if (pending === undefined) return 0;
      const size = Math.min(length, pending.length);
      buffer.set(pending.subarray(0, size), offset);
      stream.pending = size === pending.length ? undefined : pending.subarray(size);
      return size;
    },
    // biome-ignore lint/complexity/useMaxParams: Emscripten's device interface fixes this signature.
    write(stream, buffer, offset, length) {
      // The scaffold refuses oversized requests itself; this holds for raw writes to the device.
      const reply =
        length > MAX_BRIDGE_CHARS
          ? JSON.stringify({
              ok: false,
              error: {
                name: 'ValueError',
                message: `a host call may send at most ${MAX_BRIDGE_CHARS} bytes`,
              },
            })
          : answer(decoder.decode(buffer.subarray(offset, offset + length)));
      stream.pending = encoder.encode(reply);
      return length;
    },
  });
  fs.mkdev(DEVICE_PATH, dev);
}
