"""A program that never imports TensorFlow: what does the plugin cost it at start-up?"""

values = list(range(10))
print("ready")  # BREAKPOINT
