"""The benchmark workloads: quick runs work, and each floor is the framework's own math."""

import gc
import importlib

import numpy as np
import pytest

from checks.benchmarks import floors, w1_scalar, w2_mlp, w3_transformer, w4_cnn, with_torch
from checks.loader import load_framework
from checks.tools import bench

fw = load_framework("solutions")


@pytest.fixture
def without_torch(monkeypatch):
    monkeypatch.setenv("BENCH_NO_TORCH", "1")


def test_the_shared_data_is_the_framework_data():
    X, y = fw.data.make_moons(1024, 0.1, seed=0)
    X2, y2 = floors.w2_data()
    assert X2.dtype == np.float32 and np.array_equal(X, X2) and np.array_equal(y, y2)
    rng = np.random.default_rng(1234)
    for src, tgt_in, tgt_out in floors.w3_batches(3):
        for ours, theirs in zip((src, tgt_in, tgt_out), fw.data.reversal_batch(64, rng=rng)):
            assert np.array_equal(ours, theirs)


def test_w2_weights_are_drawn_weight_then_bias_from_rng_1():
    layers = floors.w2_parameters()
    rng = np.random.default_rng(1)
    first = rng.uniform(-1 / np.sqrt(2), 1 / np.sqrt(2), size=(64, 2)).astype(np.float32)
    assert np.array_equal(layers[0][0], first)
    assert [w.shape for w, _ in layers] == [(64, 2), (64, 64), (2, 64)]
    assert all(np.abs(b).max() <= 1 / np.sqrt(w.shape[1]) for w, b in layers)


def test_the_w2_floor_is_the_framework_step():
    """Same first loss, and the same trajectory: the floor does the framework's math."""
    step = w2_mlp.trainer(fw)
    framework_losses = [step() for _ in range(5)]
    floor_losses = floors.w2_floor(5, 0)["losses"]
    np.testing.assert_allclose(floor_losses[0], framework_losses[0], rtol=1e-6)
    np.testing.assert_allclose(floor_losses, framework_losses, rtol=1e-5)


def test_the_w2_floor_with_new_arrays_takes_the_floors_steps_exactly():
    """The variant changes where results are written, never what they are."""
    floor, new_arrays = floors.w2_floor_step(), floors.w2_floor_step(new_arrays=True)
    assert [floor() for _ in range(5)] == [new_arrays() for _ in range(5)]


def test_the_w2_memory_note_gives_the_variant_against_the_floor():
    note = w2_mlp.memory_note(0.5, 0.6)
    assert "0.60 ms" in note and "1.20× the floor" in note


def test_w2_quick_run_works_on_the_reference(without_torch):
    result = w2_mlp.run(fw, steps=2, warmup=0)
    assert len(result["losses"]) == 2 and result["losses"][1] < result["losses"][0]


def test_the_w3_parameters_are_236816_drawn_in_one_order():
    params = floors.w3_parameters()
    assert sum(p.size for p in params.values()) == floors.W3_PARAMETERS
    assert all(p.dtype == np.float32 for p in params.values())
    first = np.random.default_rng(0).standard_normal((16, 64)).astype(np.float32)
    assert np.array_equal(params["src_embedding"], first)
    bound = 1 / np.sqrt(256)
    assert np.abs(params["encoder.0.linear2.weight"]).max() <= bound
    assert np.abs(params["encoder.0.linear2.bias"]).max() <= bound


def test_the_w3_floor_is_the_products_of_the_w3_forward():
    """The NumPy forward makes exactly the floor's forward products; 1.10 GFLOP in all."""
    made = []
    floors.w3_loss(floors.w3_parameters(), *floors.w3_batches(1)[0], products=made)
    assert made == [(a, b) for _, a, b in floors.w3_forward_products()]
    assert round(floors.flops(floors.w3_products()) / 1e9, 2) == 1.10
    assert len(floors.w3_products()) == 3 * len(made)


def test_the_framework_w3_starts_from_the_shared_weights():
    """The framework's first W3 loss is the NumPy forward's: same weights, same model."""
    src, tgt_in, tgt_out = floors.w3_batches(1)[0]
    expected = floors.w3_loss(floors.w3_parameters(), src, tgt_in, tgt_out)
    first = w3_transformer.trainer(fw, 1)()
    np.testing.assert_allclose(first, expected, rtol=1e-5)


def test_w3_quick_run_works_on_the_reference(without_torch):
    result = w3_transformer.run(fw, steps=2, warmup=0)
    assert len(result["losses"]) == 2 and all(np.isfinite(result["losses"]))
    assert "peak_mb" not in result  # quick mode skips the memory run


def test_the_memory_run_reports_peak_and_held_memory():
    memory = w3_transformer.memory_run(fw, steps=4, window=2)
    assert memory["peak_mb"] > 0.9  # the weights alone are 0.9 MB
    assert set(memory["held_mb"]) == {2, 4}
    assert memory["peak_mb"] >= max(memory["window_peak_mb"].values())
    assert len(w3_transformer.memory_notes(memory)) >= 2


def test_the_floors_time_their_steps():
    assert floors.w3_floor(2, 0)["ms_per_step"] > 0
    assert floors.w2_floor(2, 1)["ms_per_step"] > 0
    assert floors.blas_threads() >= 1


def test_bench_hides_torch_on_request(without_torch):
    assert with_torch.torch_side() is None


def test_bench_quick_runs_every_workload_without_torch(without_torch, capsys, monkeypatch):
    monkeypatch.setenv("IMPL", "solutions")
    assert bench.main(["--quick"]) == 0
    out = capsys.readouterr().out
    for name in ("W1", "W2", "W3", "W4", "W5"):
        row = next(line for line in out.splitlines() if line.startswith(name))
        assert "not " not in row and "—" in row  # timed, no floor or PyTorch in quick mode
    assert "not implemented" not in out and "not in this framework" not in out
    # W6: the fused ops against NumPy's, each op a line; Numba is installed here
    assert next(line for line in out.splitlines() if line.startswith("W6"))
    for op in ("LayerNorm (768, 128)", "softmax (3072, 64)", "GELU (768, 512)"):
        assert op in out


def test_w6_times_each_fused_op_against_numpys_with_the_same_results():
    pytest.importorskip("numba")
    from checks.benchmarks import w6_fused

    result = w6_fused.run(fw, steps=2, warmup=0)
    assert set(result["ops"]) == {"LayerNorm", "softmax", "GELU"} and result["no_loss"]
    for op in result["ops"].values():
        assert op["numpy_ms"] > 0 and op["fused_1_ms"] > 0 and op["difference"] < 1e-4


def test_w6_without_numba_is_skipped_with_a_line(monkeypatch):
    from checks.benchmarks import w6_fused

    real_import = importlib.import_module

    def no_numba(name, *args):
        if name == "numba":
            raise ImportError("no numba here")
        return real_import(name, *args)

    monkeypatch.setattr(w6_fused.importlib, "import_module", no_numba)
    assert "Numba is not installed" in w6_fused.run(fw, steps=2, warmup=0)["skipped"]


def test_the_loss_agreement_is_the_largest_relative_difference():
    assert floors.agreement([1.0, 2.0], [1.0, 2.002]) == pytest.approx(0.001 / 1.001, rel=1e-3)


def test_the_loss_agreement_compares_the_steps_both_sides_took():
    """A quick run's few framework steps against PyTorch's ten (the appendix in make test)."""
    assert floors.agreement([1.0, 2.0], [1.0, 2.0, 3.0, 4.0]) == 0.0


def test_interleaved_timing_takes_turns_step_by_step_in_rotating_order():
    calls = []

    def contender(name):
        count = iter(range(100))
        return lambda: calls.append(name) or (name, next(count))

    timed = floors.interleaved_ms({"a": contender("a"), "b": contender("b"), "c": contender("c")},
                                  steps=4, warmup=1)
    assert "".join(calls) == "abc" + "abc" + "bca" + "cab" + "abc"
    assert timed["a"][1] == [("a", i) for i in range(5)]
    assert all(timed[name][0] > 0 for name in "abc")


def test_every_side_takes_blocks_of_steps_in_rotating_order(monkeypatch):
    calls = []

    def contender(name):
        return lambda: calls.append(name) or 1.0

    framework, floor, torch = floors.timed_with_floor_and_torch(
        contender("a"), contender("b"), contender("t"), steps=5, warmup=1, block=2,
        torch_version="test")
    assert "".join(calls) == "abt" + "aabbtt" + "bbttaa" + "tab"
    assert len(framework["losses"]) == len(floor["losses"]) == len(torch["losses"]) == 6
    assert torch["version"] == "test" and framework["ms_per_step"] > 0


def test_the_floors_variants_take_their_blocks_among_the_sides():
    calls = []

    def contender(name):
        return lambda: calls.append(name) or 1.0

    _, floor, _ = floors.timed_with_floor_and_torch(
        contender("a"), contender("b"), contender("t"), steps=4, warmup=0, block=2,
        variants={"v": contender("v")})
    assert "".join(calls) == "aabbvvtt" + "bbvvttaa"
    assert list(floor["variants"]) == ["v"] and floor["variants"]["v"] > 0


def test_without_pytorch_the_framework_and_floor_take_the_blocks():
    calls = []

    def contender(name):
        return lambda: calls.append(name) or 1.0

    _, _, torch = floors.timed_with_floor_and_torch(contender("a"), contender("b"), None,
                                                    steps=4, warmup=0, block=2)
    assert "".join(calls) == "aabb" + "bbaa" and torch is None


def test_w1_runs_a_contender_under_its_collector_setting_and_restores_the_process_setting():
    seen = []
    saved = gc.get_threshold()

    def step() -> float:
        seen.append((gc.isenabled(), gc.get_threshold()[0]))
        return 0.0

    w1_scalar.with_collector(step, (700, 10, 10))()
    w1_scalar.with_collector(step, None)()
    assert seen == [(True, 700), (False, saved[0])]
    assert gc.isenabled() and gc.get_threshold() == saved


def test_w1_times_each_contender_in_processes_of_its_own():
    timed = w1_scalar.in_own_processes(fw, ["framework", "off"], steps=2, warmup=0)
    assert list(timed) == ["framework", "off"] and min(timed.values()) > 0


def test_w1_rotates_its_contenders_and_deals_each_ones_blocks_to_its_processes_in_turn():
    assert w1_scalar.schedule(["a", "b"], steps=8, rounds=4, processes=2) == [
        ("a", 0, 2), ("b", 0, 2), ("b", 1, 2), ("a", 1, 2),
        ("a", 0, 2), ("b", 0, 2), ("b", 1, 2), ("a", 1, 2),
    ]


def test_w1_says_what_went_wrong_in_a_worker():
    with pytest.raises(RuntimeError, match="no contender 'micrograd'"):
        w1_scalar.in_own_processes(fw, ["micrograd"], steps=1, warmup=0)


def test_w1_names_its_contenders_when_asked_for_another():
    with pytest.raises(ValueError, match="framework, closure and off"):
        w1_scalar.contender(fw, "micrograd")


def test_w1_quick_run_trains_the_reference():
    result = w1_scalar.run(fw, steps=2, warmup=0)
    assert len(result["losses"]) == 2 and result["losses"][1] < result["losses"][0]


def test_w4_shares_the_chapter_6_cnn_its_batch_and_weights():
    X, y = floors.w4_data()
    assert X.shape == (256, 1, 8, 8) and X.dtype == np.float32 and X.max() == 1.0
    with np.load(fw.data.DIGITS_FILE) as archive:
        assert np.array_equal(y, archive["labels"][:256])
    layers = floors.w4_parameters()
    assert sum(a.size for pair in layers for a in pair) == floors.W4_PARAMETERS
    assert [w.shape for w, _ in layers] == [(16, 1, 3, 3), (32, 16, 3, 3), (10, 128)]
    first = np.random.default_rng(2).uniform(-1 / 3, 1 / 3, (16, 1, 3, 3)).astype(np.float32)
    assert np.array_equal(layers[0][0], first)
    assert all(np.abs(b).max() <= 1 / np.sqrt(w[0].size) for w, b in layers)


def test_the_w4_floor_is_the_framework_step():
    """Same first loss, and the same trajectory: the floor does the framework's math."""
    step = w4_cnn.trainer(fw)
    framework_losses = [step() for _ in range(5)]
    floor = w4_cnn.w4_floor_step()
    floor_losses = [floor() for _ in range(5)]
    np.testing.assert_allclose(floor_losses[0], framework_losses[0], rtol=1e-6)
    np.testing.assert_allclose(floor_losses, framework_losses, rtol=1e-5)


def test_w4_quick_run_works_on_the_reference(without_torch):
    result = w4_cnn.run(fw, steps=2, warmup=0)
    assert len(result["losses"]) == 2 and result["losses"][1] < result["losses"][0]


def test_w5_floor_counts_two_backward_products_per_forward_product():
    """Every Linear x·W adds dY·Wᵀ and xᵀ·dY; 4 layers of 6 Linears and 2 attention products."""
    from checks.benchmarks import w5_gpt

    products = w5_gpt.w5_products(76)
    assert len(products) == 3 * (6 * w5_gpt.LAYERS + 1) + 6 * w5_gpt.LAYERS
    assert ((12 * 64, 128), (128, 76)) in products  # the tied head's forward


def test_bench_shows_each_workload_at_every_thread_count_side_by_side(capsys):
    one = {"W1": {"ms_per_step": 100.0, "closure_ms": 900.0},
           "W2": {"ms_per_step": 1.2, "floor_ms": 1.0, "torch_ms": 2.4}}
    two = {"W1": {"ms_per_step": 90.0, "closure_ms": 900.0},
           "W2": {"ms_per_step": 1.5, "floor_ms": 1.0, "torch_ms": 1.0}}
    bench.side_by_side({1: one, 2: two})
    out = capsys.readouterr().out
    assert "1 thread(s)" in out and "2 thread(s)" in out
    assert "(9.0× faster)" in out and "(10.0× faster)" in out
    row = next(line for line in out.splitlines() if line.startswith("W2"))
    assert "1.20× 0.50×" in row and "1.50× 1.50×" in row


def test_the_threads_given_are_pytorchs_count_and_numpys_blas_cap():
    before = floors.blas_threads()
    try:
        floors.give_threads(1)
        assert floors.threads() == 1 == floors.blas_threads()
    finally:
        floors.give_threads(before)
        floors._given.clear()
