"""An object whose children take over 3 s to list (pydevd then lets the other threads run and
stops again, sending ``continued`` and ``stopped`` for the same stop), and two stops after it
with time between them."""

import time


class SlowToList:
    @property
    def slow(self) -> int:
        time.sleep(3.5)
        return 1


held = SlowToList()
first = 1  # FIRST_BREAKPOINT
time.sleep(2)  # still running when a client asks where a stale stop is
second = 2  # SECOND_BREAKPOINT
print("ended", first + second)
