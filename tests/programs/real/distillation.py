"""keras-io's "Knowledge Distillation" (Kenneth Borup), in its shape: a ``Distiller`` model
holding a teacher and a student, a custom ``compile`` (student and distillation losses, alpha,
temperature, metrics), and a ``train_step`` that updates the compiled metrics after the
gradients; the teacher trained first, then the student distilled by a compiled ``fit`` and
evaluated. Synthetic digits stand in for MNIST; 8 and 4 filters, three batches. Stopped in the
first ``train_step`` before its metrics are updated (``compile_metrics`` not built yet), and
after ``evaluate``."""

import os

os.environ["KERAS_BACKEND"] = "tensorflow"

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

keras.utils.set_random_seed(0)


class Distiller(keras.Model):
    def __init__(self, student, teacher):
        super().__init__()
        self.teacher = teacher
        self.student = student

    def compile(
        self,
        optimizer,
        metrics,
        student_loss_fn,
        distillation_loss_fn,
        alpha=0.1,
        temperature=3,
    ):
        super().compile(optimizer=optimizer, metrics=metrics)
        self.student_loss_fn = student_loss_fn
        self.distillation_loss_fn = distillation_loss_fn
        self.alpha = alpha
        self.temperature = temperature

    def train_step(self, data):
        x, y = data
        teacher_predictions = self.teacher(x, training=False)
        with tf.GradientTape() as tape:
            student_predictions = self.student(x, training=True)
            student_loss = self.student_loss_fn(y, student_predictions)
            distillation_loss = self.distillation_loss_fn(
                ops.softmax(teacher_predictions / self.temperature, axis=1),
                ops.softmax(student_predictions / self.temperature, axis=1),
            ) * (self.temperature**2)
            loss = self.alpha * student_loss + (1 - self.alpha) * distillation_loss
        trainable_vars = self.student.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply_gradients(zip(gradients, trainable_vars, strict=True))
        metrics = self.metrics  # noqa: F841  STEP_BREAKPOINT (the user looks at them)
        results = self.compute_metrics(x, y, student_predictions, sample_weight=None)
        results.update({"student_loss": student_loss, "distillation_loss": distillation_loss})
        return results

    def test_step(self, data):
        x, y = data
        y_prediction = self.student(x, training=False)
        student_loss = self.student_loss_fn(y, y_prediction)
        results = self.compute_metrics(x, y, y_prediction, sample_weight=None)
        results.update({"student_loss": student_loss})
        return results

    def call(self, x):
        return self.student(x)


def classifier(name, filters):
    return keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(filters, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.MaxPooling2D(pool_size=(2, 2), strides=(1, 1), padding="same"),
            layers.Conv2D(filters * 2, (3, 3), strides=(2, 2), padding="same"),
            layers.Flatten(),
            layers.Dense(10),
        ],
        name=name,
    )


teacher = classifier("teacher", 8)
student = classifier("student", 4)
student_scratch = keras.models.clone_model(student)

rng = np.random.default_rng(0)
x_train = rng.random((48, 28, 28, 1), dtype=np.float32)
y_train = rng.integers(0, 10, size=(48,)).astype("int64")
x_test, y_test = x_train[:16], y_train[:16]

teacher.compile(
    optimizer=keras.optimizers.Adam(),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=[keras.metrics.SparseCategoricalAccuracy()],
)
teacher.fit(x_train, y_train, epochs=1, batch_size=16, verbose=0)
print("teacher:", [f"{v:.6f}" for v in teacher.evaluate(x_test, y_test, verbose=0)])

distiller = Distiller(student=student, teacher=teacher)
distiller.compile(
    optimizer=keras.optimizers.Adam(),
    metrics=[keras.metrics.SparseCategoricalAccuracy()],
    student_loss_fn=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    distillation_loss_fn=keras.losses.KLDivergence(),
    alpha=0.1,
    temperature=10,
)
distiller.fit(x_train, y_train, epochs=1, batch_size=16, verbose=0)
scores = distiller.evaluate(x_test, y_test, verbose=0)
print("distilled:", [f"{v:.6f}" for v in scores])  # END_BREAKPOINT
