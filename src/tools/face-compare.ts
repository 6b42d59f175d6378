/**
 * tools/face-compare: the cosine similarity of the most confident face of image a and that of image b, and whether
 * it reaches FACE_MATCH_THRESHOLD. A measurement, not an identity verdict. An image without a face is refused
 * (422 naming a or b, nothing charged). Nothing is stored.
 */
import { createFaceReader, noFace, type ReadFaces } from './face/faces.js';
import { cosine, FACE_MODEL_ID } from './face/model.js';
import type { ToolFactory } from './types.js';
import type { ImageSource } from './vision/image-input.js';

const round = (n: number) => Number(n.toFixed(4));

export const faceCompare: ToolFactory = (deps) => {
  const faces = createFaceReader(deps);
  const threshold = deps.config.face.matchThreshold;
  return {
    preflight: () => faces.admit(),
    async run(input, call) {
      const sides: Array<[string, ReadFaces]> = [];
      for (const field of ['a', 'b'] as const) {
        const source = (input[field] ?? {}) as ImageSource;
        const read = await faces.read(source, call, field);
        if (read.faces.length === 0) throw noFace(field);
        sides.push([field, read]);
      }
      const [a, b] = sides.map(([, read]) => read.faces[0]);
      if (!a || !b) throw noFace('a');
      const similarity = round(cosine(a.embedding, b.embedding));
      return {
        similarity,
        match: similarity >= threshold,
        threshold,
        a: { face: a.answer, count: sides[0]?.[1].faces.length ?? 0 },
        b: { face: b.answer, count: sides[1]?.[1].faces.length ?? 0 },
        model: FACE_MODEL_ID,
      };
    },
  };
};
