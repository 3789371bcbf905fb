/**
 * The JSON shape of a response DTO class: services build plain objects (never class instances),
 * typed by the same class the schemas are generated from.
 */
export type Plain<T> = {
  [K in keyof T]: T[K] extends ReadonlyArray<infer E>
    ? Array<Plain<E>>
    : T[K] extends object
      ? Plain<T[K]>
      : T[K];
};
