"""The tooling: regions, stubs, use-reference, the random mutant, the loader."""

import textwrap

import nbformat
import numpy as np
import pytest

from checks.exercises import CHAPTERS, EXERCISES
from checks.loader import ROOT, impl_folder, load_framework
from checks.mutants.randomize import randomized
from checks.tools.execute import merge_streams
from checks.tools.regions import find_regions, randomize_outputs, rewrite, stub
from checks.tools.student import data_files
from checks.tools.use_reference import insert_reference

SOURCE = textwrap.dedent('''\
    def add(a, b):
        """a + b."""
        ### BEGIN SOLUTION 1.2
        return a + b
        ### END SOLUTION


    def mul(a, b):
        ### BEGIN SOLUTION 1.2
        out = a * b
        return out
        ### END SOLUTION
    ''')


def test_regions_are_found_with_their_exercise_and_indent():
    regions = find_regions(SOURCE)
    assert [(r.exercise, r.indent, r.begin, r.end) for r in regions] == [
        ("1.2", "    ", 2, 4), ("1.2", "    ", 8, 11)]


def test_a_region_left_open_is_an_error():
    with pytest.raises(ValueError, match="never closed"):
        find_regions("### BEGIN SOLUTION 1.1\nx = 1\n")


def test_a_region_inside_a_region_is_an_error():
    with pytest.raises(ValueError, match="inside another region"):
        find_regions("### BEGIN SOLUTION 1.1\n### BEGIN SOLUTION 1.2\n")


def test_stubbing_keeps_markers_and_raises_the_exercise_message():
    stubbed = rewrite(SOURCE, stub)
    assert stubbed.count("### BEGIN SOLUTION 1.2") == 2
    assert "return a + b" not in stubbed and "out = a * b" not in stubbed
    namespace = {}
    exec(stubbed, namespace)
    with pytest.raises(NotImplementedError, match=r"^Exercise 1.2: Add and multiply — see"):
        namespace["add"](1, 2)


def test_stubbing_only_one_exercise_leaves_the_others():
    assert rewrite(SOURCE, stub, only={"1.3"}) == SOURCE


def test_use_reference_puts_every_region_of_the_exercise_back():
    assert insert_reference(rewrite(SOURCE, stub), SOURCE, "1.2", "x.py") == SOURCE


def test_use_reference_refuses_when_markers_are_missing():
    with pytest.raises(SystemExit, match="restore the markers"):
        insert_reference("def add(a, b):\n    return 0\n", SOURCE, "1.2", "x.py")


def test_random_mutant_still_runs_and_returns_something_else():
    namespace = {}
    exec(rewrite(SOURCE, randomize_outputs), namespace)
    assert namespace["add"](1.5, 2.0) != 3.5


def test_randomized_keeps_shape_dtype_and_integers():
    values = randomized((np.ones((2, 3), dtype=np.float32), 4, np.arange(3)))
    assert values[0].shape == (2, 3) and values[0].dtype == np.float32
    assert not np.allclose(values[0], 1) and values[1] == 4 and sorted(values[2]) == [0, 1, 2]


def test_randomized_shuffles_integer_arrays_keeping_their_values():
    """Ids and indices (chapter 7's windows) come back in a random order, still valid indices."""
    ids = np.arange(40).reshape(5, 8)
    shuffled = randomized(ids)
    assert shuffled.shape == ids.shape and shuffled.dtype == ids.dtype
    assert sorted(shuffled.ravel()) == list(range(40)) and not np.array_equal(shuffled, ids)


def test_randomized_shuffles_a_text_keeping_its_characters():
    """A text (a decoded string, 8.8's kernel source) comes back with its characters shuffled."""
    text = "(a0[i] * a1[i]) + math.exp(a0[i])"
    shuffled = randomized(text)
    assert sorted(shuffled) == sorted(text) and shuffled != text
    assert randomized("aaa") == "aaa" and randomized("") == ""


def test_impl_chooses_the_package():
    assert impl_folder("solutions") == ROOT / "solutions"
    assert impl_folder("framework") == ROOT
    assert impl_folder(str(ROOT / "solutions" / "framework")) == ROOT / "solutions"


def test_an_impl_without_a_package_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="no framework/ package"):
        impl_folder(str(tmp_path))


def test_the_loader_returns_the_reference_for_solutions():
    assert load_framework("solutions").__file__.startswith(str(ROOT / "solutions"))


def test_every_chapter_in_the_course_totals_100_points():
    for chapter in CHAPTERS.values():
        if chapter.in_course:
            assert sum(ex.points for ex in chapter.exercises) == 100


def test_exercise_ids_are_unique_and_in_order():
    ids = [tuple(map(int, ex.id.split("."))) for ex in EXERCISES]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


class Node:
    def __init__(self, *parents):
        self.parents = parents


def test_graders_walk_puts_a_residual_parent_before_every_child():
    from checks.harness import graph_walk

    y = Node()
    branch = Node(Node(y))  # f(y), reached from the sum by a longer path than y itself
    root = Node(y, branch)  # y + f(y)
    order = graph_walk(root)
    position = {id(node): i for i, node in enumerate(order)}
    assert len(order) == 4 and order[-1] is root
    for node in order:
        assert all(position[id(p)] < position[id(node)] for p in node.parents)


def test_stored_outputs_keep_a_progress_bar_at_its_last_state():
    stream = nbformat.v4.new_output
    outputs = [stream("stream", name="stderr", text="\rtraining:   0%| 0/9"),
               stream("stream", name="stderr", text="\rtraining: 100%| 9/9\n"),
               stream("stream", name="stdout", text="9 steps\n"),
               stream("stream", name="stdout", text="done\n")]
    merged = merge_streams(outputs)
    assert [(o.name, o.text) for o in merged] == [
        ("stderr", "training: 100%| 9/9\n"), ("stdout", "9 steps\ndone\n")]


def test_hidden_files_and_caches_in_the_package_are_no_data_to_copy_or_delete(tmp_path):
    """Jupyter's checkpoints in framework/ are neither generated nor stale learner files."""
    for name in ("datasets/digits.npz", ".ipynb_checkpoints/modules-checkpoint.py.npz",
                 "nn/__pycache__/modules.cpython-311.pyc", "datasets/.DS_Store"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    assert data_files(tmp_path) == [tmp_path / "datasets/digits.npz"]
