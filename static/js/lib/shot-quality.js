// How good a camera's picture is, from a small grayscale copy of its preview (camera.js
// measures one about 4 times a second, 320 pixels wide): its exposure, its sharpness and
// how much it moved since the previous copy. Pure functions of arrays, no DOM.
//
// The thresholds were set on the team's labelled board photos (416x416, shrunk to 320 as
// the camera view shrinks its preview) and copies of them blurred or darkened.

// Mean brightness (0-255) under which the picture is too dark: the darkest twentieth of
// the board photos has a mean of 71; under 45 the dice's letters drown in the noise of a
// phone's sensor.
export const TOO_DARK_MEAN = 45;
// A pixel at or over this level is clipped: white, its detail lost.
export const CLIPPED_LEVEL = 250;
// Share of clipped pixels over which the light glares on the dice: 99 in 100 board photos
// have under 3% (a white tray, the dice's own white faces); over 6% is a lamp's or the
// flash's reflection, which washes letters out.
export const GLARE_SHARE = 0.06;
// Variance of the Laplacian (over the middle of the picture) under which it is blurred:
// the board photos give 30 to 1,700 (median 980), the same blurred by 3 pixels 14 (50 at
// most), by 1.5 pixels 100. Under 20: the letters' strokes are gone.
export const SHARP_ENOUGH = 20;
// Mean absolute difference (0-255) between two consecutive copies over which the phone is
// moving: a still phone's sensor noise and compression give 1 to 3; a hand moving the
// phone a few pixels between copies gives 8 and more.
export const STEADY_DIFF = 5;
// Share of the picture's width and height, around its centre, whose sharpness counts
// (the board is usually there; a table's edges are often out of focus).
export const CENTRE_SHARE = 0.6;

/** The luma (0-255) of each pixel of RGBA data (a canvas's `getImageData().data`). */
export function grayscale(rgba) {
  const gray = new Uint8ClampedArray(rgba.length / 4);
  for (let i = 0, j = 0; j < gray.length; i += 4, j += 1) {
    // ITU-R BT.601 weights, in integers: (77 R + 150 G + 29 B) / 256
    gray[j] = (77 * rgba[i] + 150 * rgba[i + 1] + 29 * rgba[i + 2]) >> 8;
  }
  return gray;
}

/** `{mean, clipped}`: the mean brightness (0-255) and the share (0-1) of clipped pixels. */
export function exposure(gray) {
  if (gray.length === 0) return { mean: 0, clipped: 0 };
  let sum = 0;
  let clipped = 0;
  for (const value of gray) {
    sum += value;
    if (value >= CLIPPED_LEVEL) clipped += 1;
  }
  return { mean: sum / gray.length, clipped: clipped / gray.length };
}

/** The variance of the 4-neighbour Laplacian of `gray` (`width` x `height`) over its middle
 * `share` of each side: high for sharp edges, low for a blurred picture. */
export function sharpness(gray, width, height, share = CENTRE_SHARE) {
  const x0 = Math.max(1, Math.floor((width * (1 - share)) / 2));
  const y0 = Math.max(1, Math.floor((height * (1 - share)) / 2));
  const x1 = Math.min(width - 1, width - x0);
  const y1 = Math.min(height - 1, height - y0);
  let sum = 0;
  let squares = 0;
  let count = 0;
  for (let y = y0; y < y1; y += 1) {
    const row = y * width;
    for (let x = x0; x < x1; x += 1) {
      const at = row + x;
      const laplacian = gray[at - 1] + gray[at + 1] + gray[at - width] + gray[at + width] - 4 * gray[at];
      sum += laplacian;
      squares += laplacian * laplacian;
      count += 1;
    }
  }
  if (count === 0) return 0;
  const mean = sum / count;
  return squares / count - mean * mean;
}

/** The mean absolute difference (0-255) between two copies of the same size; null when
 * there is no previous copy or its size differs (the camera changed resolution). */
export function motion(gray, previous) {
  if (!previous || previous.length !== gray.length || gray.length === 0) return null;
  let sum = 0;
  for (let i = 0; i < gray.length; i += 1) sum += Math.abs(gray[i] - previous[i]);
  return sum / gray.length;
}

/** What is wrong with the picture, the most pressing first: "dark", "glare", "moving",
 * "blurred", or null when nothing is. `shot`: {exposure, sharpness, motion} as measured
 * above (`motion` null: not known yet, which counts as moving). */
export function problemOf(shot) {
  if (shot.exposure.mean < TOO_DARK_MEAN) return "dark";
  if (shot.exposure.clipped > GLARE_SHARE) return "glare";
  if (shot.motion === null || shot.motion > STEADY_DIFF) return "moving";
  if (shot.sharpness < SHARP_ENOUGH) return "blurred";
  return null;
}

/** All the measures of one copy of the preview (RGBA data of `width` x `height`) and its
 * problem, with the copy's grayscale to compare the next one with. */
export function measure(rgba, width, height, previousGray = null) {
  const gray = grayscale(rgba);
  const shot = {
    exposure: exposure(gray),
    sharpness: sharpness(gray, width, height),
    motion: motion(gray, previousGray),
  };
  return { ...shot, problem: problemOf(shot), gray };
}
