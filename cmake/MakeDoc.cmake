# Concatenates generated Markdown into a checked-in document:
#   cmake -DOUT=... -DFROM=<sources> -DREFRESH=<target> [-DTITLE=...]
#         -DPARTS=a;b -P MakeDoc.cmake
file(WRITE ${OUT} "<!-- Generated from ${FROM} by `ninja ${REFRESH}`; do not edit. -->\n\n")
if(TITLE)
  file(APPEND ${OUT} "${TITLE}\n\n")
endif()
foreach(part ${PARTS})
  file(READ ${part} text)
  file(APPEND ${OUT} "${text}\n")
endforeach()
