/** DESIGN.md 3: every native success is `{exception: 0, message: <Russian text>, data}`. */
export function nativeOk<D>(data: D, message = 'Запрос выполнен успешно'): { exception: 0; message: string; data: D } {
  return { exception: 0, message, data };
}
