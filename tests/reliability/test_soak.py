"""benchmarks.soak against the `secured` service: a short soak has no errors; remote URLs are refused."""

from __future__ import annotations

import pytest

from benchmarks.soak import SoakError, check_loopback, main, soak


def test_short_soak_has_no_errors(secured):
    result = soak(secured.live.url, threads=2, seconds=3, key=secured.keys["finance-app"], max_requests=500)
    assert result["errors"] == 0, result["errors_by_kind"]
    assert result["requests"] > 0 and result["throughput_rps"] > 0
    assert result["latency_ms"]["p50"] is not None
    assert set(result["workers"]["rss_mb_start"]) == set(secured.live.worker_pids()), result["workers"]


@pytest.mark.parametrize("url", ["http://10.0.0.5:8000", "http://example.com:8000", "http://0.0.0.0:8000",
                                 "https://127.0.0.1:8000", "http://[2001:db8::1]:8000"])
def test_non_loopback_urls_are_refused(url, capsys):
    with pytest.raises(SoakError, match="refusing"):
        check_loopback(url)
    assert main(["--url", url, "--seconds", "1"]) == 2
    assert "loopback" in capsys.readouterr().err


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000", "http://127.3.4.5:1", "http://localhost:8000",
                                 "http://[::1]:8000"])
def test_loopback_urls_are_accepted(url):
    assert check_loopback(url)[0] in url
