"""A breakpoint in a Keras model's own train_step under compiled fit (run_eagerly off)."""

import keras
import numpy as np
import tensorflow as tf


class Regressor(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)  # TRAIN_STEP_BREAKPOINT
        return {"loss": loss}


keras.utils.set_random_seed(1)
inputs = keras.Input((4,))
outputs = keras.layers.Dense(1)(keras.layers.Dense(8, activation="relu")(inputs))
model = Regressor(inputs, outputs)
model.compile(optimizer="adam", loss="mse")
x = np.random.rand(48, 4).astype("float32")
y = np.random.rand(48, 1).astype("float32")
model.fit(x, y, batch_size=16, epochs=1, verbose=0)
done = True  # END
