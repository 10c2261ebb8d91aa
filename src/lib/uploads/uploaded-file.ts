import type { JsonableError } from "../../errors.js";

/** A file of a multipart request, received by http/upload.ts into a temporary file. */
export interface UploadedFile {
  /** The temporary file; the handler moves it into the store, leftovers are removed. */
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  /** The name the client gave (unsanitized). */
  readonly originalName: string;
}

/** How big a file an endpoint takes, and its error for a bigger one (413). */
export interface UploadLimits {
  readonly maxFileBytes: number;
  readonly tooLarge: () => JsonableError;
}
