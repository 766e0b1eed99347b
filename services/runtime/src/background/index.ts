/** `@commerce/runtime/background`: the one way to run a periodic background task. */
export * from "./periodic-task.js";
