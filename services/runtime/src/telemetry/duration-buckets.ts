/**
 * The bucket boundaries, in seconds, the semantic conventions advise for their duration
 * histograms (`rpc.server.call.duration`, `messaging.process.duration`): the SDK's default
 * boundaries are meant for milliseconds and would put every call in the first bucket.
 */
export const durationBucketsSeconds: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];
