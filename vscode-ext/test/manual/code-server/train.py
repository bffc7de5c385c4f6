import tensorflow as tf

x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
w = tf.Variable(tf.ones((3, 2)), name="w")
y = tf.matmul(x, w)
print("done", y.shape)  # breakpoint here
