"""The two compact CNNs: a die-centre detector and a die-face classifier.

Only ``vision.train`` builds them; inference loads the saved ``.keras`` files. Keras is
imported inside the builders so the input-size constants cost nothing to import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vision.faces import NUM_CLASSES

if TYPE_CHECKING:
    import keras

# Detector input side (pixels) and output stride: a 48x48 heat map of die centres.
DETECTOR_INPUT = 192
DETECTOR_STRIDE = 4
# Classifier input: one grayscale die crop.
CLASSIFIER_INPUT = 32


def _conv(x: keras.KerasTensor, filters: int, strides: int = 1) -> keras.KerasTensor:
    from keras import layers

    x = layers.Conv2D(filters, 3, strides=strides, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def build_detector() -> keras.Model:
    """RGB (H, W, 3) in 0..255 -> heat map (H/4, W/4, 1) of die centres in 0..1.

    Inference uses 192 x 192 windows (a 48 x 48 heat map).
    """
    import keras
    from keras import layers

    # Fully convolutional: any side divisible by 16 works (trained on smaller patches).
    inputs = keras.Input((None, None, 3), name="photo")
    x = layers.Rescaling(1 / 127.5, offset=-1)(inputs)
    x = _conv(x, 16, 2)
    x = _conv(x, 24, 2)
    stride4 = _conv(x, 24)
    x = _conv(stride4, 40, 2)
    stride8 = _conv(x, 40)
    x = _conv(stride8, 64, 2)
    x = _conv(x, 64)
    x = _conv(x, 64)
    x = layers.UpSampling2D()(x)
    x = layers.Concatenate()([x, stride8])
    x = _conv(x, 40)
    x = layers.UpSampling2D()(x)
    x = layers.Concatenate()([x, stride4])
    x = _conv(x, 32)
    outputs = layers.Conv2D(
        1,
        1,
        activation="sigmoid",
        bias_initializer=keras.initializers.Constant(-4.0),  # start near "no die anywhere"
        name="centres",
    )(x)
    return keras.Model(inputs, outputs, name="dice_detector")


def build_classifier() -> keras.Model:
    """Standardised grayscale crop (32, 32, 1) -> softmax over (face, quarter turns)."""
    import keras
    from keras import layers

    inputs = keras.Input((CLASSIFIER_INPUT, CLASSIFIER_INPUT, 1), name="die")
    x = _conv(inputs, 24)
    x = layers.MaxPooling2D()(x)
    x = _conv(x, 48)
    x = _conv(x, 48)
    x = layers.MaxPooling2D()(x)
    x = _conv(x, 96)
    x = _conv(x, 96)
    x = layers.MaxPooling2D()(x)
    x = _conv(x, 128)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.25)(x)
    outputs = layers.Dense(NUM_CLASSES, activation="softmax", name="face_turns")(x)
    return keras.Model(inputs, outputs, name="die_classifier")
