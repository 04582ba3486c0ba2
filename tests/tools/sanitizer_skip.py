#!/usr/bin/env python3
"""Stands in, under -DFTMPI_SANITIZE=ON, for a test whose subject the
sanitizers cannot run (ftmpi_skip_under_sanitizers in tests/CMakeLists.txt):
prints why on one line and exits 77, which CTest reports as skipped. The
normal build runs the test itself.

  sanitizer_skip.py REASON...
"""
import sys

print("skipped under -DFTMPI_SANITIZE=ON: " + " ".join(sys.argv[1:]))
sys.exit(77)
