// The fake model in a process of its own (bench/lib/fake-process.ts starts it): prints its URL
// and its clock's offset onto CLOCK_MONOTONIC as one JSON line, and stops when stdin closes.
import { startFakeLlm } from "../../tests/fixtures/fake-gemini";
import { monoOffset } from "./mono-clock";

const fake = await startFakeLlm();
// Its records' times are this process's performance.now(): the offset puts them on the monotonic
// clock, which the bench's own process and Chromium's CDP timestamps share.
process.stdout.write(`${JSON.stringify({ url: fake.url, monoOffset: monoOffset() })}\n`);
process.stdin.resume();
process.stdin.once("end", () => {
  void fake.stop().finally(() => process.exit(0));
});
