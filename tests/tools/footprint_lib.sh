# Sourced by the -footprint tests of programs without libraries, whose every instruction
# from _start to code_end runs (tests/apps/footprint_exact.S, footprint_again.S).

# The report -footprint gives of APP, from its data lines and pages and its code span:
# footprint_of APP LOAD_LINES LOAD_PAGES STORE_LINES STORE_PAGES DATA_LINES DATA_PAGES
footprint_of() {
	local app=$1 start end code_lines code_pages
	start=$((16#$(nm "$app" | awk '$3 == "_start" { print $1 }')))
	end=$((16#$(nm "$app" | awk '$3 == "code_end" { print $1 }')))
	code_lines=$(((end - 1) / 64 - start / 64 + 1))
	code_pages=$(((end - 1) / 4096 - start / 4096 + 1))
	printf '%s\n' "footprint loads lines $2 pages $3" "footprint stores lines $4 pages $5" \
		"footprint code lines $code_lines pages $code_pages" \
		"footprint total lines $(($6 + code_lines)) pages $(($7 + code_pages))"
}
