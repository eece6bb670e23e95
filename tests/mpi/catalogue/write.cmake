# cmake -DCOLLBENCH=<collbench> -DOUT=<file> -P write.cmake: the catalogue as JSON, written
# aside and renamed, so that a failed listing never leaves a partial catalogue.
execute_process(COMMAND ${COLLBENCH} --list-algorithms --format json
                OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${COLLBENCH} --list-algorithms --format json failed (${rc}): ${err}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
