# Each Python test method is its own ctest test, run against the built binary.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(_cli_tests
  UsageErrors.test_unknown_suite UsageErrors.test_unknown_backend
  UsageErrors.test_negative_repetitions UsageErrors.test_malformed_number
  UsageErrors.test_strict_with_malformed_number UsageErrors.test_bad_regex
  UsageErrors.test_filter_matches_nothing UsageErrors.test_filter_matches_nothing_any_backend
  UsageErrors.test_summary_same_as_out UsageErrors.test_unwritable_out
  UsageErrors.test_out_is_directory UsageErrors.test_unknown_subcommand
  UsageErrors.test_passthrough_must_be_benchmark_flags
  GoogleBenchmarkPassthrough.test_benchmark_out_writes_its_own_json
  UsageErrors.test_unknown_formula UsageErrors.test_theory_malformed_value
  UsageErrors.test_theory_negative_value UsageErrors.test_theory_missing_value
  UsageErrors.test_theory_unknown_parameter UsageErrors.test_occupancy_threads_above_limit
  UsageErrors.test_occupancy_smem_above_optin UsageErrors.test_occupancy_unknown_arch
  Theory.test_occupancy_example
  Theory.test_roofline_json Theory.test_list_formulas Theory.test_peak_flops_h100
  Theory.test_format_table Theory.test_quant Theory.test_quant_float
  Theory.test_gemm_error
  NoGpuPath.test_info_says_why NoGpuPath.test_cuda_backend_skips_with_reason
  NoGpuPath.test_info_shows_a_runs_measured_hierarchy
  RooflineFailure.test_faster_than_bound_fails_the_run
  Compare.test_same_run_is_no_regression Compare.test_slower_copy_regresses
  Compare.test_bad_input_exit_2 CompareSamples.test_power_every_timing_times_1_2
  CompareSamples.test_outlier_case_doubled_is_slower CompareSamples.test_honest_rerun_no_alarm
  CompareSamples.test_other_machine_refused_then_cross_device
  CompareSamples.test_bad_input_one_line_exit_2 Navigation.test_list_by_suite_and_filter
  Navigation.test_theory_formula_help_lists_parameters_with_units
  Navigation.test_info_versions_and_sizes Markdown.test_summary_and_compare_render
  Report.test_html_and_pngs Report.test_bad_input_exit_2
  Project.test_committed_runs_both_ways Project.test_bad_input_exit_2
  Project.test_run_split_over_files
  Verdicts.test_strict_run_new_fields_and_rejudged_verdicts
  Verdicts.test_a_groups_rounds_come_first_and_the_validator_holds_them_to_it
  Verdicts.test_a_cache_sized_members_own_samples_and_rounds_kept_apart
  Interrupted.test_sigterm_leaves_valid_file)
foreach(t IN LISTS _cli_tests)
  add_test(NAME cli.${t}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.py
                   $<TARGET_FILE:boundbench> ${t})
  set_tests_properties(cli.${t} PROPERTIES LABELS "cpu;cli" TIMEOUT 300)
endforeach()
# Every test that may use a GPU (boundbench info, the CUDA backend, NCCL) holds the resource lock
# "gpu", as the GPU tests do: `ctest -j` never runs two of them at once on one GPU (some time it).
set_tests_properties(cli.NoGpuPath.test_info_says_why cli.NoGpuPath.test_cuda_backend_skips_with_reason
  cli.NoGpuPath.test_info_shows_a_runs_measured_hierarchy cli.Navigation.test_info_versions_and_sizes
  cli.GoogleBenchmarkPassthrough.test_benchmark_out_writes_its_own_json
  PROPERTIES RESOURCE_LOCK gpu)

# The quick run of every suite, validated; serial so that its measurements see a quiet machine.
add_test(NAME smoke.run_quick
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/smoke_run.sh $<TARGET_FILE:boundbench>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/smoke)
set_tests_properties(smoke.run_quick PROPERTIES LABELS "cpu;smoke" TIMEOUT 600 RUN_SERIAL TRUE
                     RESOURCE_LOCK gpu)

# ci/report.py on the committed results (no binary needed): figures, labels, headline, rooflines,
# the before/after intervals, bad input. One ctest test per class (a class draws its report once).
foreach(t IN ITEMS ReportFigures ReportIntervals ReportInputs ReportHierarchicalRoofline)
  add_test(NAME report.${t}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report_test.py ${t})
  set_tests_properties(report.${t} PROPERTIES LABELS "cpu;cli" TIMEOUT 600)
endforeach()

# Formatting is part of the build's contract: clang-format (.clang-format) must find nothing to change.
find_program(CLANG_FORMAT NAMES clang-format clang-format-14)
if(CLANG_FORMAT)
  file(GLOB_RECURSE _formatted CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/theory/*.cpp ${PROJECT_SOURCE_DIR}/theory/*.h
    ${PROJECT_SOURCE_DIR}/reference/*.cpp ${PROJECT_SOURCE_DIR}/reference/*.h
    ${PROJECT_SOURCE_DIR}/kernels/*.cpp ${PROJECT_SOURCE_DIR}/kernels/*.h ${PROJECT_SOURCE_DIR}/kernels/*.cu
    ${PROJECT_SOURCE_DIR}/harness/*.cpp ${PROJECT_SOURCE_DIR}/harness/*.h ${PROJECT_SOURCE_DIR}/harness/*.cu
    ${PROJECT_SOURCE_DIR}/suites/*.cpp ${PROJECT_SOURCE_DIR}/suites/*.h
    ${PROJECT_SOURCE_DIR}/app/*.cpp ${PROJECT_SOURCE_DIR}/app/*.h
    ${PROJECT_SOURCE_DIR}/tests/*.cpp)
  add_test(NAME format.clang_format
           COMMAND ${CLANG_FORMAT} --dry-run -Werror --style=file ${_formatted}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(format.clang_format PROPERTIES LABELS "cpu;format")
endif()

# The command-line tests of a suite run under mpirun (skipped with the reason when mpirun is
# absent): one ctest test per method of SCRIPT, PREFIX.Class.method; the MpiRuns ones measure and
# fit: alone on the machine, as the smoke run.
function(boundbench_mpi_cli_tests prefix script)
  foreach(t IN LISTS ARGN)
    add_test(NAME ${prefix}.${t}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/${script}
                     $<TARGET_FILE:boundbench> ${t})
    set_tests_properties(${prefix}.${t} PROPERTIES LABELS "cpu;cli;${prefix}" TIMEOUT 300)
    if(t MATCHES "^MpiRuns")
      set_tests_properties(${prefix}.${t} PROPERTIES RUN_SERIAL TRUE)
    endif()
  endforeach()
endfunction()

# The collectives suite (1, 2, 4 ranks).
boundbench_mpi_cli_tests(collectives collectives_cli_test.py
  MpiRuns.test_two_ranks MpiRuns.test_four_ranks_scaling
  MpiRuns.test_theory_from_the_measured_link Reliability.test_watchdog_aborts_a_hung_collective
  Reliability.test_ranks_with_different_arguments Reliability.test_error_on_one_rank_ends_every_rank
  Reliability.test_bad_input
  Reliability.test_nccl_without_gpu_says_why NcclTestsComparison.test_within_and_beyond_tolerance)
set_tests_properties(collectives.Reliability.test_nccl_without_gpu_says_why PROPERTIES
                     RESOURCE_LOCK gpu)

# The Slurm launch path: a one-node Slurm cluster (munged, slurmctld, slurmd as root) runs
# `srun -n 4 --mpi=pmix` of strategies and collectives --quick; skipped (77) with the reason where
# Slurm cannot be started. Alone on the machine: it measures.
add_test(NAME slurm.srun_four_ranks
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm_test.sh $<TARGET_FILE:boundbench>
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(slurm.srun_four_ranks PROPERTIES LABELS "cpu;slurm" TIMEOUT 1200
                     SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)

# The strategies suite.
boundbench_mpi_cli_tests(strategies strategies_cli_test.py
  MpiRuns.test_two_ranks MpiRuns.test_overlap MpiRuns.test_interleaved
  Reliability.test_watchdog_aborts_a_hung_rank
  Reliability.test_ranks_with_different_arguments Reliability.test_bad_input_on_every_rank
  Reliability.test_bad_input)
set_tests_properties(strategies.Reliability.test_bad_input_on_every_rank PROPERTIES  # --engine nccl
                     RESOURCE_LOCK gpu)

# The false-alarm test (label "falsealarm"): `run --quick` of every suite and the collectives at
# 2 MPI ranks beside a CPU-bound process pinned to core 0 must report no FAIL. Alone on the
# machine, as the smoke run.
add_test(NAME falsealarm.loaded
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/false_alarm.sh $<TARGET_FILE:boundbench>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/falsealarm)
set_tests_properties(falsealarm.loaded PROPERTIES LABELS "cpu;falsealarm" TIMEOUT 900
                     RUN_SERIAL TRUE RESOURCE_LOCK gpu)
