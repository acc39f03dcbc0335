import type Redis from 'ioredis';

/** What a process's Redis clients tell its `/metrics` (issue 28): each command's time to its answer. */
export type RedisObserver = (command: string, seconds: number) => void;

let observer: RedisObserver | undefined;

/** Sets (or, with undefined, clears) the process's observer of its Redis commands. */
export function observeRedis(next: RedisObserver | undefined): void {
  observer = next;
}

/**
 * Times every command of the client from its sending to its answer (or failure), for the observer set when the
 * command is sent: a clock read and a callback a command.
 */
export function instrumentRedis(redis: Redis): Redis {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command, stream) => {
    const watching = observer;
    if (watching) {
      const started = performance.now();
      const done = () => watching(command.name, (performance.now() - started) / 1000);
      command.promise.then(done, done);
    }
    return send(command, stream);
  }) as Redis['sendCommand'];
  return redis;
}
