// The SQL lexer reads comments, quotes and identifiers as MariaDB does, and the dataset SQL check
// refuses by name in every form MariaDB accepts. Each accepted row of the check's table was run on
// MariaDB 10.11 while writing it (`SELECT 1--1` is 2, `` `GET_LOCK` ('x', 0) `` and, under
// ANSI_QUOTES, `"GET_LOCK"('x', 0)` take a lock, `/*M! + 5 */` is executed).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { SqlLexError, tokenizeSql } from '../../../engine/template/sql-lexer.js'
import { datasetSqlProblem } from '../../../engine/template/dataset-sql.js'
import { queryPlaceholders } from '../../../engine/template/validate.js'

/** The significant tokens as `kind:value`. */
function code (sql: string): string[] {
  return tokenizeSql(sql).filter((t) => t.kind !== 'space').map((t) => `${t.kind}:${t.kind === 'comment' || t.kind === 'executable' ? sql.slice(t.start, t.end) : t.value}`)
}

test('tokens: comments, quotes, identifiers and placeholders as MariaDB reads them', () => {
  const cases: Array<[string, string[]]> = [
    // `--` is a comment only before whitespace, a control character or the end.
    ['SELECT 1--1 INTO @v', ['word:SELECT', 'word:1', 'op:-', 'op:-', 'word:1', 'word:INTO', 'op:@', 'word:V']],
    ['SELECT 1 -- x\nAS y', ['word:SELECT', 'word:1', 'comment:-- x', 'word:AS', 'word:Y']],
    ['SELECT 1 --\tx\n2', ['word:SELECT', 'word:1', 'comment:--\tx', 'word:2']],
    ['SELECT 1 --', ['word:SELECT', 'word:1', 'comment:--']],
    ['SELECT 1 --\u007fx', ['word:SELECT', 'word:1', 'comment:--\u007fx']],
    ['SELECT 1 --\u00a0x', ['word:SELECT', 'word:1', 'op:-', 'op:-', 'word:\u00a0X']],
    ['SELECT a#b\nFROM t', ['word:SELECT', 'word:A', 'comment:#b', 'word:FROM', 'word:T']],
    ['SELECT 1 # a\r GET_LOCK(', ['word:SELECT', 'word:1', 'comment:# a\r GET_LOCK(']],
    ['SELECT /* a -- \'b */ 1', ['word:SELECT', 'comment:/* a -- \'b */', 'word:1']],
    ['SELECT /* /* */ 1', ['word:SELECT', 'comment:/* /* */', 'word:1']],
    ['SELECT 1 /*!50100 + 1 */', ['word:SELECT', 'word:1', 'executable:/*!50100 + 1 */']],
    ['SELECT 1 /*M! + 1 */, 2 /*M!100000 ' +
      'x*/', ['word:SELECT', 'word:1', 'executable:/*M! + 1 */', 'op:,', 'word:2', 'executable:/*M!100000 x*/']],
    ['SELECT /*+ MAX_EXECUTION_TIME(0) */ 1', ['word:SELECT', 'executable:/*+ MAX_EXECUTION_TIME(0) */', 'word:1']],
    // Strings: doubled quotes and backslash escapes; a `--` or `#` inside is text.
    ["SELECT 'it''s -- no', 'a\\nb', " +
      "'c\\\\'", ['word:SELECT', "string:it's -- no", 'op:,', 'string:a\nb', 'op:,', 'string:c\\']],
    ['SELECT "a""b # c"', ['word:SELECT', 'string:a"b # c']],
    ["SELECT 'a\\%b'", ['word:SELECT', 'string:a\\%b']],
    ['SELECT `x``y` FROM `a\\`', ['word:SELECT', 'identifier:x`y', 'word:FROM', 'identifier:a\\']],
    // Placeholders: not inside quotes or comments, not after `:` or a word character.
    ["SELECT :a, ':b', a::int, x:c, " +
      '(:context.company)', ['word:SELECT', 'placeholder:a', 'op:,', 'string::b', 'op:,', 'word:A', 'op::', 'op::', 'word:INT', 'op:,', 'word:X', 'op::', 'word:C', 'op:,', 'op:(', 'placeholder:context.company', 'op:)']],
    ['SELECT é$1, 0x7f, N\'x\'', ['word:SELECT', 'word:É$1', 'op:,', 'word:0X7F', 'op:,', 'word:N', 'string:x']]
  ]
  for (const [sql, expected] of cases) assert.deepEqual(code(sql), expected, sql)
  // The tokens cover the text exactly.
  const sql = "SELECT a -- c\n, 'x' /* y */ FROM `t` WHERE b = :b"
  assert.equal(tokenizeSql(sql).map((t) => sql.slice(t.start, t.end)).join(''), sql)
})

test('SQL the lexer cannot read the way every server would is refused', () => {
  const cases: Array<[string, RegExp]> = [
    ["SELECT 'abc", /unterminated string/],
    ['SELECT "abc', /unterminated quoted text/],
    ['SELECT `abc', /unterminated `identifier`/],
    ['SELECT 1 /* abc', /unterminated \/\* comment/],
    ["SELECT 'a\\' , GET_LOCK('x', 0) -- '", /backslash/],
    ['SELECT "a\\" , 1', /backslash/],
    ['SELECT 1 #\0\nGET_LOCK(', /NUL/]
  ]
  for (const [sql, message] of cases) {
    const lexError = (err: unknown): boolean => err instanceof SqlLexError && message.test(err.message)
    assert.throws(() => tokenizeSql(sql), lexError, sql)
    assert.match(datasetSqlProblem(sql) ?? '', message, sql)
    assert.deepEqual(queryPlaceholders(sql), [], sql)
  }
})

test('the dataset SQL check: a table of refused and accepted queries', () => {
  const refused: Array<[string, RegExp]> = [
    ["SELECT GET_LOCK('svc_migrate:svc', 0)", /GET_LOCK\(\)/],
    ["SELECT get_lock ('x', 0)", /GET_LOCK\(\)/],
    ["SELECT `GET_LOCK`('x', 0)", /GET_LOCK\(\)/],
    ["SELECT `get_lock` /* c */ ('x', 0)", /GET_LOCK\(\)/],
    ["SELECT \"GET_LOCK\"('x', 0)", /GET_LOCK\(\)/],
    ["SELECT Get_Lock -- c\n ('x', 0)", /GET_LOCK\(\)/],
    ["SELECT GET_LOCK#c\n('x', 0)", /GET_LOCK\(\)/],
    ["SELECT RELEASE_LOCK('x')", /RELEASE_LOCK/],
    ['SELECT RELEASE_ALL_LOCKS()', /RELEASE_ALL_LOCKS/],
    ["SELECT IS_FREE_LOCK('x'), 1", /IS_FREE_LOCK/],
    ["SELECT IS_USED_LOCK('x')", /IS_USED_LOCK/],
    ['SELECT SLEEP(10)', /SLEEP/],
    ['SELECT sleep\t(10)', /SLEEP/],
    ["SELECT BENCHMARK(1e9, MD5('x'))", /BENCHMARK/],
    ["SELECT `LOAD_FILE`('/etc/passwd')", /LOAD_FILE/],
    ["SELECT load_file('/etc/passwd')", /LOAD_FILE/],
    ["SELECT MASTER_POS_WAIT('f', 4)", /MASTER_POS_WAIT/],
    ["SELECT MASTER_GTID_WAIT('0-1-1')", /MASTER_GTID_WAIT/],
    ['SELECT x.SLEEP(1) FROM t x', /SLEEP/],
    ['SELECT 1--1 INTO @v', /"INTO"/],
    ["SELECT a FROM t INTO OUTFILE '/tmp/x'", /"INTO"/],
    ["SELECT a FROM t INTO DUMPFILE '/tmp/x'", /"INTO"/],
    ['SELECT a FROM t WHERE id = 1 FOR UPDATE', /"UPDATE"/],
    ['SELECT a FROM t LOCK IN SHARE MODE', /"LOCK"/],
    ['SELECT a FROM t FOR SHARE', /"FOR SHARE"/],
    ['SELECT a FROM t PROCEDURE ANALYSE()', /"PROCEDURE"/],
    ['SELECT 1 /*!50000 INTO @v */', /executable comments/],
    ['SELECT 1 /*M! , SLEEP(5) */', /executable comments/],
    ['SELECT 1 /*m!100000 , 2 */', /executable comments/],
    ['SELECT 1 /*!*/', /executable comments/],
    ['SELECT /*+ MAX_EXECUTION_TIME(0) */ 1', /optimizer hints/],
    ['SELECT 1; DELETE FROM t', /single statement/],
    ['SELECT 1 -- ;\n; SELECT 2', /single statement/],
    ['UPDATE t SET a = 1', /SELECT or WITH/],
    ['(DELETE FROM t)', /SELECT or WITH/],
    ['-- only a comment', /SELECT or WITH/],
    ['WITH x AS (SELECT 1) DELETE FROM t', /"DELETE"/],
    ["SELECT 1 FROM t WHERE a = 'x' CALL p()", /"CALL"/]
  ]
  for (const [sql, message] of refused) assert.match(datasetSqlProblem(sql) ?? 'accepted', message, sql)
  const accepted = [
    'SELECT 1--1 AS two',
    "SELECT 'GET_LOCK(1)', \"SLEEP(1)\", `sleep` FROM t -- GET_LOCK(\n",
    "SELECT sleep, benchmark FROM t WHERE `into` = 'INTO OUTFILE' /* INTO @v */ # SLEEP(1)",
    "SELECT REPLACE(name, 'a', 'b') AS n, 'it''s' AS s FROM t ORDER BY `lock`",
    '(SELECT a FROM t) UNION (SELECT b FROM u);',
    'WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i FROM n',
    'SELECT a FROM t FOR SYSTEM_TIME AS OF TIMESTAMP :at',
    'SELECT :a, a::int FROM t WHERE b IN (:ids) AND c = :context.company'
  ]
  for (const sql of accepted) assert.equal(datasetSqlProblem(sql), undefined, sql)
})
