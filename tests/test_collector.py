"""The cyclic collector in a server: what lives at its start is left out of passes."""

import gc
import weakref

from webapp.common import jsontext


class Node:
    """An object that can hold a reference cycle and be watched by a weak reference."""

    def __init__(self):
        self.other = None


def test_what_lives_when_the_heap_is_frozen_is_left_out_of_later_passes():
    before = Node()
    try:
        jsontext.freeze_the_heap()
        assert gc.get_freeze_count() > 0
        tracked = {id(o) for o in gc.get_objects()}
        assert id(before) not in tracked
        after = Node()
        assert id(after) in {id(o) for o in gc.get_objects()}
    finally:
        gc.unfreeze()


def test_garbage_made_after_the_freeze_is_still_collected():
    try:
        jsontext.freeze_the_heap()
        first, second = Node(), Node()
        first.other, second.other = second, first
        watched = weakref.ref(first)
        del first, second
        gc.collect()
        assert watched() is None
    finally:
        gc.unfreeze()


def test_garbage_alive_only_in_a_cycle_is_collected_before_freezing():
    # no automatic pass may collect the cycle before the freeze does
    gc.disable()
    try:
        first, second = Node(), Node()
        first.other, second.other = second, first
        watched = weakref.ref(first)
        del first, second
        assert watched() is not None
        jsontext.freeze_the_heap()
        assert watched() is None
    finally:
        gc.unfreeze()
        gc.enable()
