# cmake -DSOURCE_DIR=<metalsim> -P cmake/check_layers.cmake
#
# Fails if a file includes a header of a higher layer (docs/architecture.md draws the layers):
#   simt/fiber, simt/base  ->  simt/report  ->  simt/engine  ->  simt/include, simt/lanes
#   ->  simt/front  ->  host (public headers, runtime)  ->  kernels, host/model, host/python
#   ->  host/cli
#   ->  tests, bench, examples
# and two rules of their own: the public host headers (host/include) include no engine or fiber
# header (the host's implementation stays behind them), and bench includes nothing of tests.
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_layers: pass -DSOURCE_DIR=<metalsim checkout>")
endif()

# Folder prefix -> rank; the longest matching prefix wins.
set(layer_prefixes simt/fiber simt/base simt/report simt/engine simt/include simt/lanes simt/front
                   host/include host/src host/model host/python kernels host/cli tests bench
                   examples)
set(layer_ranks    0          0         1            2           3            3          4
                   5            5        6          6           6       7        8     8
                   8)

function(layer_of path out)
  set(best_len 0)
  set(best_rank -1)
  list(LENGTH layer_prefixes n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    list(GET layer_prefixes ${i} prefix)
    string(LENGTH "${prefix}" len)
    string(SUBSTRING "${path}/" 0 ${len} head)
    if(head STREQUAL prefix AND len GREATER best_len)
      list(GET layer_ranks ${i} best_rank)
      set(best_len ${len})
    endif()
  endforeach()
  set(${out} ${best_rank} PARENT_SCOPE)
endfunction()

# The file an include names, relative to the checkout ("" when it is not metalsim's).
function(included_path text out)
  set(path "")
  if(text MATCHES "^(simt|host|kernels|tests|bench)/")
    set(path "${text}")
  elseif(text MATCHES "^metalsim/")
    set(path "host/include/${text}")
  elseif(text MATCHES "^support/")
    set(path "tests/${text}")
  endif()
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}"
     "${SOURCE_DIR}/simt/*" "${SOURCE_DIR}/host/*" "${SOURCE_DIR}/kernels/*"
     "${SOURCE_DIR}/bench/*" "${SOURCE_DIR}/examples/*")
set(violations "")
foreach(file IN LISTS sources)
  if(NOT file MATCHES "\\.(h|hpp|cpp|cc|metal)$|/metal_[a-z_]+$")
    continue()
  endif()
  layer_of("${file}" from)
  if(from LESS 0)
    continue()
  endif()
  file(STRINGS "${SOURCE_DIR}/${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    included_path("${inc}" target)
    if(target STREQUAL "")
      continue()
    endif()
    layer_of("${target}" to)
    if(to GREATER from)
      string(APPEND violations "  ${file} includes ${inc} (a higher layer)\n")
    endif()
    if(file MATCHES "^host/include/" AND target MATCHES "^simt/(engine|fiber)/")
      string(APPEND violations "  ${file} includes ${inc}: public host headers include no engine header\n")
    endif()
    if(file MATCHES "^bench/" AND target MATCHES "^tests/")
      string(APPEND violations "  ${file} includes ${inc}: benchmarks include nothing of tests\n")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "includes that go up a layer (docs/architecture.md):\n${violations}")
endif()
message(STATUS "layers: no include goes up a layer")
