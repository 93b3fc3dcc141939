/** A persisted slice file that is missing, foreign, of another format or damaged: rebuild it. */
export class SegmentError extends Error {}
