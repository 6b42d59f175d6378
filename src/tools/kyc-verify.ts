/**
 * tools/kyc-verify: ocr-id on an identity document plus face-compare between the photo printed on it and a selfie.
 * Measurements only (the document's structural checks, the faces' cosine similarity and whether it reaches
 * FACE_MATCH_THRESHOLD): no pass/fail verdict and no liveness check. Both images are checked for a face before
 * the vision model is asked, so a photo without one (422 naming it) costs neither the caller nor kasir anything.
 * Nothing is stored: kasir media objects given as input are deleted once read.
 */
import { createFaceReader, noFace } from './face/faces.js';
import { cosine, FACE_MODEL_ID } from './face/model.js';
import { createDocumentReader } from './ocr-id.js';
import type { ToolFactory } from './types.js';
import { createImageReader, type ImageSource } from './vision/image-input.js';

const round = (n: number) => Number(n.toFixed(4));

export const kycVerify: ToolFactory = (deps) => {
  const documents = createDocumentReader(deps);
  if ('missing' in documents) return documents;
  const images = createImageReader(deps);
  const faces = createFaceReader(deps);
  const threshold = deps.config.face.matchThreshold;
  return {
    preflight: () => faces.admit(),
    async run(input, call) {
      const idImage = await images.read((input.id_image ?? {}) as ImageSource, call, {
        field: 'id_image',
        deleteMedia: true,
      });
      const selfie = await faces.read((input.selfie ?? {}) as ImageSource, call, 'selfie');
      const onDocument = (await faces.ofImage(idImage, call.signal)).faces[0];
      if (!onDocument) throw noFace('id_image');
      const [own] = selfie.faces;
      if (!own) throw noFace('selfie');
      const document = await documents.read(idImage, call);
      const similarity = round(cosine(onDocument.embedding, own.embedding));
      return {
        document: { fields: document.fields, verification: document.verification },
        face: {
          similarity,
          match: similarity >= threshold,
          threshold,
          document_face: onDocument.answer,
          selfie_face: own.answer,
          selfie_faces: selfie.faces.length,
        },
        model: document.model,
        face_model: FACE_MODEL_ID,
        note: 'Measurements only: no pass/fail verdict and no liveness check.',
      };
    },
  };
};
