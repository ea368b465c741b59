"""Test marks. `jvm`: a test that starts Spark (a local session, a standalone cluster, the job's
command line); python/test.sh runs the suite once whole, then twice more without them, to show
that what remains passes run after run (a flaky test is a defect) without tripling CI's time."""

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "jvm: starts Spark's JVM (a session, a cluster, the job)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if {"session", "cluster"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.jvm)
