#!/bin/sh
# The coverage-preserving oracle of the GTR paper's XML experiment, in the benchmark's calling
# convention (the file first): exit 0 when xmllint, built with gcov instrumentation by
# ../shared/bench/build_xmllint_gcov.sh (its folder in $XMLLINT_GCOV_DIR), executes exactly the
# lines of libxml2 on FILE that it executed on the original input (recorded by the benchmark in
# $WHITTLE_COVERAGE_REF), or at least those lines with `--superset`.
# Usage: xml_coverage.sh FILE [--superset]
# $WHITTLE_COVERAGE_ORACLE is ../shared/bench/oracles/xml_gcov_coverage.py; the benchmark sets
# all three variables.
: "${WHITTLE_COVERAGE_ORACLE:?}" "${WHITTLE_COVERAGE_REF:?}" "${XMLLINT_GCOV_DIR:?}"
exec python3 "$WHITTLE_COVERAGE_ORACLE" --check "$WHITTLE_COVERAGE_REF" "$1" ${2:+"$2"}
